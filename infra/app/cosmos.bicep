// Cosmos DB for the SessionStore and the collections' chunk index: serverless
// (billed per request unit and GB, nothing while idle), key auth disabled, and a
// data-plane role assignment so the managed identity can read and write items.
// The containers are created here because data-plane RBAC cannot create databases
// or containers. The chunks container carries a full-text policy and index (BM25
// through FullTextScore; docs/collections.md says why this and not Azure AI Search).
param accountName string
param location string
param tags object = {}
param databaseName string
param containerName string
@description('The collections\' chunks: full-text indexed, partitioned by collection.')
param chunksContainerName string
@description('Principal id of the managed identity that gets Built-in Data Contributor.')
param principalId string

// Cosmos DB Built-in Data Contributor (data-plane role, not an Azure RBAC role).
var dataContributorRoleId = '00000000-0000-0000-0000-000000000002'

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-05-15' = {
  name: accountName
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    // checkov:skip=CKV_AZURE_99:No VNet in the pay-per-use shape; the account accepts AAD tokens only (local auth disabled).
    // checkov:skip=CKV_AZURE_101:Same reason as CKV_AZURE_99: public endpoint, AAD-only.
    databaseAccountOfferType: 'Standard'
    capabilities: [
      {
        name: 'EnableServerless'
      }
      {
        // Full-text policies, indexes and the FullText* query functions need it.
        name: 'EnableNoSQLFullTextSearch'
      }
    ]
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    publicNetworkAccess: 'Enabled'
    minimalTlsVersion: 'Tls12'
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-05-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
  }
}

resource container 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-05-15' = {
  parent: database
  name: containerName
  properties: {
    resource: {
      id: containerName
      partitionKey: {
        paths: [
          '/chat_id'
        ]
        kind: 'Hash'
      }
    }
  }
}

// Full-text policies need a newer API version than the account's other resources use.
resource chunks 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-12-01-preview' = {
  parent: database
  name: chunksContainerName
  properties: {
    resource: {
      id: chunksContainerName
      partitionKey: {
        paths: [
          '/collection_id'
        ]
        kind: 'Hash'
      }
      fullTextPolicy: {
        defaultLanguage: 'en-US'
        fullTextPaths: [
          {
            path: '/text'
            language: 'en-US'
          }
        ]
      }
      indexingPolicy: {
        indexingMode: 'consistent'
        includedPaths: [
          {
            path: '/*'
          }
        ]
        excludedPaths: [
          {
            path: '/text/?'
          }
          {
            path: '/"_etag"/?'
          }
        ]
        fullTextIndexes: [
          {
            path: '/text'
          }
        ]
      }
    }
  }
}

resource dataContributor 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-05-15' = {
  parent: account
  name: guid(account.id, principalId, dataContributorRoleId)
  properties: {
    roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataContributorRoleId}'
    principalId: principalId
    scope: account.id
  }
}

output accountName string = account.name
output endpoint string = account.properties.documentEndpoint
output databaseName string = database.name
output containerName string = container.name
output chunksContainerName string = chunks.name
