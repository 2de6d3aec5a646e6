// Optional: lets the app's managed identity call an existing Azure OpenAI (or
// AI Services) account, so AZURE_OPENAI_API_KEY can stay empty. Deployed into
// the account's own resource group by main.bicep when azureOpenAiAccountName is set.
param accountName string
param principalId string

// Cognitive Services OpenAI User: inference only, no management rights.
var openAiUserRoleId = '5e0bd9bd-7b93-4f28-af87-19fc36ad61bd'

resource account 'Microsoft.CognitiveServices/accounts@2024-10-01' existing = {
  name: accountName
}

resource openAiUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(account.id, principalId, openAiUserRoleId)
  scope: account
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', openAiUserRoleId)
  }
}
