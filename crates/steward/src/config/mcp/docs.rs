//! The `[mcp.servers.NAME]` reference text appended to `docs/CONFIG.md` (kept apart from the
//! parser so that file stays small). Owns the wording only; the fields and their checks are
//! in `config::mcp`, and `docs_in_sync` keeps CONFIG.md equal to this text.

/// The reference appended to `docs/CONFIG.md`.
pub const DOCS: &str = "## MCP servers\n\n\
Each `[mcp.servers.NAME]` table declares one MCP server whose tools Steward offers to the model \
as `NAME__tool` (NAME: 1-32 of `a-z`, `0-9`, `_`, no leading, trailing or double `_`). Servers \
connect in the background: start-up never waits for them, and a server that fails is retried \
with capped exponential backoff (0.5 s doubling to 60 s). `steward mcp list` and \
`steward mcp test NAME` show what each one offers and whether it works.\n\n\
| field | meaning |\n|---|---|\n\
| `command` | program to run; it speaks MCP on stdin/stdout. It inherits only PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, LC_ALL, TMPDIR and TZ from Steward's environment, never its API keys. It runs in a process group of its own: stopping or restarting the server (SIGTERM, then SIGKILL after 2 s) also ends everything it started |\n\
| `args` | its arguments (array of strings) |\n\
| `env` | extra environment for it (table of strings; values are secret: never logged or shown) |\n\
| `url` | instead of `command`: a streamable HTTP endpoint (`http://` or `https://`) |\n\
| `headers` | HTTP headers for `url`, e.g. `Authorization` (values are secret) |\n\
| `timeout_secs` | limit for connecting and for every call, 1-600 (default 25). A call is also cut at the tool limit of 30 s, whichever comes first; a longer value helps slow starts (`npx` downloading a package) |\n\
| `enabled` | `false` keeps it configured but not started (default `true`) |\n\
| `allow_sampling` | advertise the sampling capability to it (default `false`). Sampling requests are refused either way in this version: approving them is not implemented yet |\n\
| `trust_annotations` | believe the server when it marks a tool read-only (`readOnlyHint`), so such tools run without asking (default `false`: every tool asks unless overridden below). Set it only for a server you trust: the hint is the server's own claim |\n\
| `tools.TOOL.effect` | override the effect of the server's tool `TOOL` (as the server spells it): `read` (runs without asking), `write`, `external` or `destructive` (ask first). An override naming no tool of the server is reported by `steward doctor` and `steward mcp list`, and logged as a warning when `steward serve` first lists the server's tools |\n\n\
Without an override a tool's effect comes from its annotations: `destructiveHint` → \
destructive (also when the tool claims `readOnlyHint` too), `readOnlyHint` → read only with \
`trust_annotations = true`, anything else → external, so the approval gate asks. In \
`env` and `headers` values and in `url`, `${VAR}` is replaced by the environment variable VAR \
(an unset VAR is an error), so secrets need not be written in the file; listings show a URL \
without its query and credentials; every log line (Steward's and its libraries') is \
redacted of these values too.\n\n\
Tool schemas: local `$ref`s (`#/$defs/…`, `#/definitions/…`, any JSON pointer into the \
schema, as Pydantic-built servers write them) are followed, recursion up to a depth limit. \
A reference to another document (`https://…`, `other.json#…`) is never fetched: the tool is \
still offered, that part of its arguments accepts anything (the server still checks it), and \
`steward mcp list`, `steward mcp test`, `steward doctor` and the log say so, naming the \
server, the tool and the reference. The model sees one line per tool in the tool index and, \
once it loads a tool, the tool's whole description (up to 8 KiB). An HTTP server's session \
is ended with `DELETE` when Steward stops (and after each `mcp list`/`mcp test` probe); a \
server that cannot be reached is reported plainly (\"could not connect to HOST:PORT \
(connection refused) — is the server running?\", DNS and TLS failures, HTTP 401/403/404).\n\n\
```toml\n\
[mcp.servers.files]\n\
command = \"npx\"\n\
args = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/home/me/notes\"]\n\
trust_annotations = true\n\
tools.write_file.effect = \"destructive\"\n\n\
[mcp.servers.tracker]\n\
url = \"https://mcp.example.com/mcp\"\n\
headers = { Authorization = \"Bearer ${TRACKER_TOKEN}\" }\n\
timeout_secs = 20\n\
tools.list_issues.effect = \"read\"\n\
```\n";
