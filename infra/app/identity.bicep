// The one user-assigned managed identity the function app runs as. Every data
// plane (Storage, Cosmos DB, Key Vault, Application Insights, Durable Task
// Scheduler, Azure OpenAI) grants this identity a role; no keys exist.
param name string
param location string
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
