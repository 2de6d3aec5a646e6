// The API as the page uses it: same origin, the user's own credentials.
//
// Credentials are whatever the deployment asks for: a function key the user
// typed (kept in sessionStorage, so it dies with the tab, and sent as the
// x-functions-key header, never in a URL), and/or the same-origin cookie of
// App Service authentication. The page itself holds no secret.

const KEY_STORAGE = "deep-research.function-key";

// The API lives beside the page: /api/ui -> /api (the route prefix is the host's choice).
export const API_BASE = location.pathname.replace(/\/ui\/?$/, "");

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || [];
  }
}

export function functionKey() {
  return sessionStorage.getItem(KEY_STORAGE) || "";
}

export function setFunctionKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

export function authHeaders() {
  const key = functionKey();
  return key ? { "x-functions-key": key } : {};
}

export function apiUrl(path) {
  return `${API_BASE}/${path}`;
}

/** fetch() with the credentials; any non-2xx answer becomes an ApiError. */
export async function request(path, { method = "GET", body, accept } = {}) {
  const headers = { ...authHeaders() };
  if (accept) headers.Accept = accept;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(apiUrl(path), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    cache: "no-store",
  });
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function requestJson(path, options) {
  return (await request(path, options)).json();
}

export async function errorOf(response) {
  if (response.status === 401 || response.status === 403) {
    return new ApiError(response.status, "unauthorized",
      `The service refused the request (${response.status}): it needs a valid function key `
      + "(Access key, above), or a fresh sign-in.");
  }
  try {
    const { error } = await response.json();
    return new ApiError(response.status, error.code, error.message, error.details);
  } catch {
    return new ApiError(response.status, "http_error", `The service answered ${response.status}.`);
  }
}

/** Download a file the API serves, with the credentials a plain link could not send. */
export async function download(path, filename) {
  const blob = await (await request(path)).blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
