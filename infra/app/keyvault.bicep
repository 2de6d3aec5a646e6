// Key Vault for the keys the app cannot replace with its managed identity
// (OpenAI-compatible endpoints, Tavily, Brave, the webhook signing secret).
// Each secret is created only when its secure parameter is non-empty; the app
// reads them through @Microsoft.KeyVault(SecretUri=...) references resolved by
// the platform with the user-assigned identity (Key Vault Secrets User).
param name string
param location string
param tags object = {}

@secure()
param openAiApiKey string = ''
@secure()
param tavilyApiKey string = ''
@secure()
param braveApiKey string = ''
@secure()
param webhookSecret string = ''

var secrets = [
  {
    key: 'openAiApiKey'
    name: 'openai-api-key'
    value: openAiApiKey
  }
  {
    key: 'tavilyApiKey'
    name: 'tavily-api-key'
    value: tavilyApiKey
  }
  {
    key: 'braveApiKey'
    name: 'brave-api-key'
    value: braveApiKey
  }
  {
    key: 'webhookSecret'
    name: 'webhook-secret'
    value: webhookSecret
  }
]

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    // checkov:skip=CKV_AZURE_109:No VNet in the pay-per-use shape; the vault is reached over its public endpoint with RBAC (AAD) only.
    // checkov:skip=CKV_AZURE_189:Same reason as CKV_AZURE_109.
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 7
    enablePurgeProtection: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

@batchSize(1)
resource secret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = [
  for s in secrets: if (!empty(s.value)) {
    // checkov:skip=CKV_AZURE_41:Third-party API keys are rotated by their issuers, not on a fixed expiry; an expiring reference would silently break the app.
    parent: vault
    name: s.name
    properties: {
      value: s.value
      contentType: 'text/plain'
    }
  }
]

// App setting values: a versionless Key Vault reference per provided secret
// (the app picks up a rotated secret on its next restart), '' otherwise.
// Only names and URIs leave this module, never values.
var base = '${vault.properties.vaultUri}secrets'

output name string = vault.name
output id string = vault.id
output appSettingReferences object = {
  openAiApiKey: empty(openAiApiKey) ? '' : '@Microsoft.KeyVault(SecretUri=${base}/openai-api-key)'
  tavilyApiKey: empty(tavilyApiKey) ? '' : '@Microsoft.KeyVault(SecretUri=${base}/tavily-api-key)'
  braveApiKey: empty(braveApiKey) ? '' : '@Microsoft.KeyVault(SecretUri=${base}/brave-api-key)'
  webhookSecret: empty(webhookSecret) ? '' : '@Microsoft.KeyVault(SecretUri=${base}/webhook-secret)'
}
