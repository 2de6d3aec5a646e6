"""The deployment files agree with the code: every setting is provided, no keys anywhere.

There is no Bicep compiler here (it is a binary download), so the templates are
read as text: the app settings of the function app are the keys of the Bicep
objects merged into its ``appsettings`` config resource. ``checkov`` covers the
security rules it knows; these tests cover what only this project knows (its
Settings, its host.json contract with devhost, its identity-only auth).
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr

from shared.core.config import Settings

ROOT = Path(__file__).resolve().parents[2]
INFRA = ROOT / "infra"
API_BICEP = INFRA / "app" / "api.bicep"

SETTING_NAMES = sorted(name.upper() for name in Settings.model_fields)
# Settings that differ from the code default in Azure on purpose.
AZURE_OVERRIDES = {"DATA_DIR"}  # the package directory is read-only on Flex; /tmp is not
# Settings the platform sets itself; an app setting of the same name would claim to speak for it.
# FUNCTIONS_WORKER_PROCESS_COUNT is the Functions host's (Flex Consumption manages its worker
# processes); devhost reads it to run as the host does.
PLATFORM_SETTINGS = {"WEBSITE_AUTH_ENABLED", "FUNCTIONS_WORKER_PROCESS_COUNT"}


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _bicep_files() -> list[Path]:
    return sorted(INFRA.rglob("*.bicep"))


def _block_after(text: str, start: int) -> str:
    """The balanced ``{...}`` block that opens at the first brace at or after ``start``."""
    open_at = text.index("{", start)
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at : i + 1]
    raise AssertionError("unbalanced braces")


def _object_entries(block: str) -> dict[str, str]:
    """Top-level ``key: value`` lines of a Bicep object literal (comments skipped)."""
    entries: dict[str, str] = {}
    depth = 0
    for line in block.splitlines():
        stripped = line.strip()
        if depth == 1 and not stripped.startswith("//"):
            match = re.match(r"^'?([A-Za-z_][A-Za-z0-9_]*)'?\s*:\s*(.*)$", stripped)
            if match:
                entries[match.group(1)] = match.group(2).strip()
        depth += line.count("{") - line.count("}")
    return entries


def _bicep_var(text: str, name: str) -> dict[str, str]:
    match = re.search(rf"^var {name} = ", text, flags=re.MULTILINE)
    assert match, f"var {name} not found"
    return _object_entries(_block_after(text, match.end()))


def _function_app_settings() -> dict[str, str]:
    """Name → Bicep expression of every app setting the function app receives."""
    text = _read(API_BICEP)
    match = re.search(r"^resource \w+ 'Microsoft\.Web/sites/config@[^']+' = ", text, re.MULTILINE)
    assert match, "the function app has no config resource"
    resource = _block_after(text, match.end())
    assert re.search(r"name: 'appsettings'", resource)
    union = re.search(r"properties: union\(([^)]*)\)", resource)
    assert union, "appsettings properties are expected to be a union of named objects"
    settings: dict[str, str] = {}
    for var_name in (v.strip() for v in union.group(1).split(",")):
        ternary = re.search(rf"^var {var_name} = \w+ \? (\w+) : \{{\}}$", text, re.MULTILINE)
        settings.update(_bicep_var(text, ternary.group(1) if ternary else var_name))
    return settings


def _local_values() -> dict[str, str]:
    document = json.loads(_read(ROOT / "local.settings.example.json"))
    assert document["IsEncrypted"] is False
    return document["Values"]


def _host() -> dict:
    return json.loads(_read(ROOT / "host.json"))


def _timespan(value: str) -> timedelta:
    hours, minutes, seconds = (int(part) for part in value.split(":"))
    return timedelta(hours=hours, minutes=minutes, seconds=seconds)


def _behaves_as_default(name: str, parsed: object) -> bool:
    default = Settings.model_fields[name].get_default()
    if isinstance(parsed, SecretStr):
        parsed = parsed.get_secret_value()
    if default is None:
        return not parsed
    return parsed == default


# -- (a) every setting the code reads is provided ------------------------------


@pytest.mark.parametrize("name", SETTING_NAMES)
def test_local_settings_example_provides_every_setting(name: str) -> None:
    assert name in _local_values()


@pytest.mark.parametrize("name", sorted(set(SETTING_NAMES) - PLATFORM_SETTINGS))
def test_function_app_receives_every_setting(name: str) -> None:
    assert name in _function_app_settings()


@pytest.mark.parametrize("name", sorted(PLATFORM_SETTINGS))
def test_the_deployment_never_sets_what_the_platform_says(name: str) -> None:
    assert name not in _function_app_settings()


def test_local_settings_example_runs_the_code_defaults() -> None:
    """Copied as-is, the example starts the app with exactly the documented defaults."""
    values = _local_values()
    fields = Settings.model_fields
    settings = Settings(**{k.lower(): v for k, v in values.items() if k.lower() in fields})
    drift = [name for name in fields if not _behaves_as_default(name, getattr(settings, name))]
    assert drift == []


def test_azure_literal_settings_match_the_code_defaults() -> None:
    literals = {
        name.lower(): expr.strip("'")
        for name, expr in _function_app_settings().items()
        if name in SETTING_NAMES and name not in AZURE_OVERRIDES and re.fullmatch(r"'[^'$]*'", expr)
    }
    assert len(literals) > 20  # the numeric caps really are literals in api.bicep
    settings = Settings(**literals)
    drift = [name for name in literals if not _behaves_as_default(name, getattr(settings, name))]
    assert drift == []


def test_function_app_uses_identity_based_host_storage_and_telemetry() -> None:
    settings = _function_app_settings()
    assert settings["AzureWebJobsStorage__credential"] == "'managedidentity'"
    assert {"AzureWebJobsStorage__accountName", "AzureWebJobsStorage__clientId"} <= set(settings)
    assert "AzureWebJobsStorage" not in settings  # a connection string would need a key
    assert "Authorization=AAD" in settings["APPLICATIONINSIGHTS_AUTHENTICATION_STRING"]
    # FUNCTIONS_WORKER_RUNTIME is deprecated on Flex (functionAppConfig.runtime instead).
    assert "FUNCTIONS_WORKER_RUNTIME" not in settings
    assert re.search(r"name: 'python'\s+version: '3\.11'", _read(API_BICEP))


def test_secrets_reach_the_app_only_as_key_vault_references() -> None:
    settings = _function_app_settings()
    for name in ("OPENAI_API_KEY", "TAVILY_API_KEY", "BRAVE_API_KEY", "WEBHOOK_SECRET"):
        assert settings[name].startswith("secretReferences."), name
    keyvault = _read(INFRA / "app" / "keyvault.bicep")
    assert keyvault.count("'@Microsoft.KeyVault(SecretUri=${base}/") == 4
    assert "enableRbacAuthorization: true" in keyvault
    # Keys that identity replaces stay empty in Azure.
    for name in ("AZURE_OPENAI_API_KEY", "COSMOS_KEY", "AZURE_STORAGE_CONNECTION_STRING"):
        assert settings[name] == "''", name


# -- (b) no shared keys, no local auth -----------------------------------------


def test_no_resource_enables_shared_keys_or_local_auth() -> None:
    for path in _bicep_files():
        text = _read(path)
        assert not re.search(r"allowSharedKeyAccess:\s*true", text, re.IGNORECASE), path
        assert not re.search(r"disableLocalAuth:\s*false", text, re.IGNORECASE), path
        assert "listKeys(" not in text and "listConnectionStrings(" not in text, path


def test_every_data_service_requires_aad() -> None:
    storage = _read(INFRA / "app" / "storage.bicep")
    cosmos = _read(INFRA / "app" / "cosmos.bicep")
    monitoring = _read(INFRA / "app" / "monitoring.bicep")
    assert "allowSharedKeyAccess: false" in storage
    assert "disableLocalAuth: true" in cosmos
    assert "DisableLocalAuth: true" in monitoring


def test_cosmos_is_serverless_with_a_data_plane_role_for_the_identity() -> None:
    cosmos = _read(INFRA / "app" / "cosmos.bicep")
    assert "name: 'EnableServerless'" in cosmos
    assert "sqlRoleAssignments@" in cosmos
    assert "'00000000-0000-0000-0000-000000000002'" in cosmos
    assert re.search(r"paths: \[\s*'/chat_id'\s*\]", cosmos)


def test_identity_gets_the_storage_monitoring_and_vault_roles() -> None:
    rbac = _read(INFRA / "app" / "rbac.bicep")
    for role_id in (
        "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",  # Storage Blob Data Owner
        "974c5e8b-45b9-4653-ba55-5f855dd0fb88",  # Storage Queue Data Contributor
        "0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3",  # Storage Table Data Contributor
        "3913510d-42f4-4e42-8a64-420c390055eb",  # Monitoring Metrics Publisher
        "4633458b-17de-408a-b874-0445c86b69e6",  # Key Vault Secrets User
    ):
        assert role_id in rbac


# -- (c) host.json --------------------------------------------------------------


def test_host_json_uses_the_v4_bundle_and_a_hub_name_from_app_settings() -> None:
    host = _host()
    assert host["version"] == "2.0"
    assert host["extensionBundle"] == {
        "id": "Microsoft.Azure.Functions.ExtensionBundle",
        "version": "[4.*, 5.0.0)",
    }
    durable = host["extensions"]["durableTask"]
    assert durable["hubName"] == "%TASKHUB_NAME%"
    assert "TASKHUB_NAME" in _local_values()
    assert "TASKHUB_NAME" in _function_app_settings()
    assert host["extensions"]["http"]["routePrefix"] == "api"


def test_the_mcp_endpoint_takes_the_system_key_and_its_sse_queues_are_reachable() -> None:
    """The MCP extension ships in every v4 bundle; its SSE transport uses the host's queues."""
    mcp = _host()["extensions"]["mcp"]
    assert mcp["system"]["webhookAuthorizationLevel"] == "System"  # not Anonymous
    assert mcp["serverName"]
    rbac = _read(INFRA / "app" / "rbac.bicep")
    assert "974c5e8b-45b9-4653-ba55-5f855dd0fb88" in rbac  # Storage Queue Data Contributor
    outputs = _read(INFRA / "main.bicep")
    assert "output MCP_SERVER_URL string = '${api.outputs.url}/runtime/webhooks/mcp'" in outputs


def test_host_json_keeps_the_azure_storage_backend_cheap_to_idle() -> None:
    provider = _host()["extensions"]["durableTask"]["storageProvider"]
    assert provider["type"] == "AzureStorage"
    assert _timespan(provider["maxQueuePollingInterval"]) <= timedelta(seconds=10)


def test_durable_concurrency_fits_the_python_thread_pool() -> None:
    """Activities and orchestrators are sync: each holds a worker thread while it runs."""
    durable = _host()["extensions"]["durableTask"]
    in_flight = (
        durable["maxConcurrentActivityFunctions"] + durable["maxConcurrentOrchestratorFunctions"]
    )
    local_threads = int(_local_values()["PYTHON_THREADPOOL_THREAD_COUNT"])
    azure_threads = int(re.search(r"param pythonThreadCount int = (\d+)", _read(API_BICEP))[1])
    assert durable["maxConcurrentActivityFunctions"] >= 1
    assert in_flight <= local_threads <= 32  # 32 is the worker's maximum
    assert in_flight <= azure_threads <= 32


def test_function_timeout_covers_a_researcher_step_but_is_bounded() -> None:
    timeout = _timespan(_host()["functionTimeout"])
    assert timedelta(minutes=10) <= timeout <= timedelta(hours=2)


def test_durable_task_scheduler_is_a_switch_not_a_second_host_json() -> None:
    main = _read(INFRA / "main.bicep")
    api = _read(API_BICEP)
    assert re.search(r"@allowed\(\['azureStorage', 'durableTaskScheduler'\]\)", main)
    assert re.search(r"module dts 'app/dts.bicep' = if \(useDts\)", main)
    scheduler = _bicep_var(api, "schedulerSettings")
    assert scheduler["AzureFunctionsJobHost__extensions__durableTask__storageProvider__type"] == (
        "'azureManaged'"
    )
    assert "DURABLE_TASK_SCHEDULER_CONNECTION_STRING" in scheduler
    # The always-ready durable instance is only paid for with the Azure Storage backend.
    assert "useDts ? [] : durableAlwaysReady" in api
    assert "0ad04412-c4d5-4796-b79c-f76d14c8d402" in _read(INFRA / "app" / "dts.bicep")


# -- (d) no secrets in templates, outputs or examples ---------------------------

SECRET_PATTERNS = [
    r"AccountKey=",
    r"SharedAccessSignature=",
    r"[?&]sig=[A-Za-z0-9%]{10,}",
    r"InstrumentationKey=[0-9a-f-]{36}",
    r"\bsk-[A-Za-z0-9_-]{20,}",
    r"\btvly-[A-Za-z0-9]{10,}",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
]


def _deployment_files() -> list[Path]:
    files = [p for p in INFRA.rglob("*") if p.is_file()]
    return [*files, ROOT / "azure.yaml", ROOT / "host.json", ROOT / "local.settings.example.json"]


@pytest.mark.parametrize("pattern", SECRET_PATTERNS)
def test_no_secret_literals_in_deployment_files(pattern: str) -> None:
    offenders = [p.name for p in _deployment_files() if re.search(pattern, _read(p))]
    assert offenders == []


def test_secure_parameters_have_no_default_and_are_never_output() -> None:
    for path in _bicep_files():
        text = _read(path)
        secure = re.findall(r"@secure\(\)\s*\nparam (\w+) string(?: = (.*))?", text)
        for name, default in secure:
            assert default in ("", "''"), f"{path.name}: {name} has a default"
            for output in re.findall(r"^output .*$", text, re.MULTILINE):
                # Testing emptiness decides between a reference and '' - never the value.
                assert re.sub(rf"empty\({name}\)", "", output).count(name) == 0, output


def test_local_settings_example_holds_no_secret_values() -> None:
    values = _local_values()
    secret_fields = [
        name.upper()
        for name, field in Settings.model_fields.items()
        if "SecretStr" in str(field.annotation)
    ]
    assert len(secret_fields) >= 5
    assert {name: values[name] for name in secret_fields if values[name]} == {}


# -- azd and Core Tools glue ----------------------------------------------------


def test_azd_outputs_are_upper_snake_and_include_the_app_url() -> None:
    outputs = re.findall(r"^output (\w+) ", _read(INFRA / "main.bicep"), re.MULTILINE)
    assert outputs and all(re.fullmatch(r"[A-Z][A-Z0-9_]*", name) for name in outputs)
    assert "FUNCTION_APP_URL" in outputs


def test_azd_deploys_the_function_app_tagged_for_the_api_service() -> None:
    azure_yaml = _read(ROOT / "azure.yaml")
    assert re.search(r"^  api:\n(    .*\n)*    host: function$", azure_yaml, re.MULTILINE)
    assert "'azd-service-name': 'api'" in _read(API_BICEP)


def test_azd_parameters_cover_every_required_main_parameter() -> None:
    main = _read(INFRA / "main.bicep")
    required = re.findall(r"^param (\w+) \w+$", main, re.MULTILINE)
    provided = json.loads(_read(INFRA / "main.parameters.json"))["parameters"]
    assert required and set(required) <= set(provided)


def test_package_leaves_out_local_only_files() -> None:
    ignored = set(_read(ROOT / ".funcignore").split())
    assert {"local.settings.json", "tests/", "devhost/", ".venv*", "infra/"} <= ignored


def test_every_checkov_skip_has_a_reason() -> None:
    for path in _bicep_files():
        for line in _read(path).splitlines():
            if "checkov:skip" in line:
                assert re.fullmatch(r"\s*// checkov:skip=CKV2?_AZURE_\d+:\S.{10,}", line), line
