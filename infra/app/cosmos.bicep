// Cosmos DB for the SessionStore: serverless (billed per request unit and GB,
// nothing while idle), key auth disabled, and a data-plane role assignment so
// the managed identity can read and write items. The container is created
// here because data-plane RBAC cannot create databases or containers.
param accountName string
param location string
param tags object = {}
param databaseName string
param containerName string
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
