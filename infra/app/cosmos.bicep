// Cosmos DB for the SessionStore and the collections' chunk index: serverless
// (billed per request unit and GB, nothing while idle), key auth disabled, and a
// data-plane role assignment so the managed identity can read and write items.
// The containers are created here because data-plane RBAC cannot create databases
// or containers. The chunks container carries a full-text policy and index (BM25
// through FullTextScore; docs/collections.md says why this and not Azure AI Search)
// and a vector embedding policy and index on /embedding, for hybrid search (RRF of
// FullTextScore and VectorDistance) when EMBEDDING_MODEL is set. A vector policy
// cannot be changed once the container exists: another embedding model with other
// dimensions needs a new chunks container.
param accountName string
param location string
param tags object = {}
param databaseName string
param containerName string
@description('The collections\' chunks: full-text indexed, partitioned by collection.')
param chunksContainerName string
@description('Dimensions of EMBEDDING_MODEL\'s vectors (text-embedding-3-small: 1536).')
@minValue(1)
@maxValue(4096)
param embeddingDimensions int = 1536
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
      {
        // Vector policies, vector indexes and VectorDistance (hybrid search) need it.
        name: 'EnableNoSQLVectorSearch'
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

// Full-text and vector policies need a newer API version than the account's other
// resources use.
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
      // Cosine, as the local index scores; float32, as the embeddings API returns them.
      vectorEmbeddingPolicy: {
        vectorEmbeddings: [
          {
            path: '/embedding'
            dataType: 'float32'
            dimensions: embeddingDimensions
            distanceFunction: 'cosine'
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
          {
            // kept out of the range index: only the vector index reads it
            path: '/embedding/*'
          }
        ]
        fullTextIndexes: [
          {
            path: '/text'
          }
        ]
        // quantizedFlat: exact-style kNN over compressed vectors, up to 4096 dimensions;
        // each search stays in one collection's partition, a few thousand chunks.
        vectorIndexes: [
          {
            path: '/embedding'
            type: 'quantizedFlat'
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
