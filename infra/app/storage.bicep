// The storage account behind AzureWebJobsStorage (host state, Durable task hub
// queues/tables/blobs when the Azure Storage backend is used), the Flex
// deployment package container and the `agent-sessions` memory files.
// Shared keys are off: every client authenticates with the managed identity.
param name string
param location string
param tags object = {}
param deploymentContainerName string
param memoryContainerName string
@description('The collections\' records and stored originals (COLLECTIONS_CONTAINER).')
param collectionsContainerName string

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    // checkov:skip=CKV_AZURE_206:Durable state and memory files are re-creatable working data; LRS keeps the idle cost minimal.
    name: 'Standard_LRS'
  }
  properties: {
    // checkov:skip=CKV_AZURE_59:Flex Consumption without VNet integration reaches storage over its public endpoint; access is AAD-only (shared keys off).
    // checkov:skip=CKV_AZURE_35:Default network action Allow for the same reason; a VNet + private endpoints would add fixed cost.
    accessTier: 'Hot'
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
  properties: {
    deleteRetentionPolicy: {
      enabled: true
      days: 7
    }
    containerDeleteRetentionPolicy: {
      enabled: true
      days: 7
    }
  }
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource memoryContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: memoryContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource collectionsContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: collectionsContainerName
  properties: {
    publicAccess: 'None'
  }
}

output name string = storage.name
output id string = storage.id
output blobEndpoint string = storage.properties.primaryEndpoints.blob
output deploymentContainerName string = deploymentContainer.name
output memoryContainerName string = memoryContainer.name
output collectionsContainerName string = collectionsContainer.name
