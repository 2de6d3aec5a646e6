// Cosmos DB stand-in for tests: @vercel/cosmosdb-server with keep-alive (its CLI
// closes every connection, ~50 ms/request), a fresh self-signed certificate, and
// 404 instead of 500 when a missing document is read. Usage: node cosmos_launcher.js PORT
"use strict";
const { execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const lib = "@vercel/cosmosdb-server/lib";
const readDocument = require(`${lib}/handler/read-document`);
const partition = require(`${lib}/utils/get-partition-from-header`);
const original = readDocument.default;
// Patched before ./routes is loaded, so the router picks up the wrapper.
readDocument.default = (account, req, res, params) => {
  const collection = account.database(params.dbId).collection(params.collId);
  const key = partition.parsePartitionKey(partition.default(req), params.docId);
  if (collection.read() && !collection.document(params.docId, key).read()) {
    res.statusCode = 404;
    return { code: "NotFound", message: "Entity with the specified id does not exist in the system." };
  }
  return original(account, req, res, params);
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cosmos-standin-"));
const [keyFile, certFile] = [path.join(dir, "key.pem"), path.join(dir, "cert.pem")];
execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
  "-subj", "/CN=127.0.0.1", "-keyout", keyFile, "-out", certFile], { stdio: "ignore" });
const { createHttpsServer } = require(lib);
const server = createHttpsServer({
  keepAlive: true, key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile),
});
fs.rmSync(dir, { recursive: true, force: true });
const port = parseInt(process.argv[2] || "8081", 10);
server.keepAliveTimeout = 60000;
server.listen(port, "127.0.0.1", () => console.log(`cosmos stand-in ready on 127.0.0.1:${port}`));
