//! Shapes of the exchanges around the data: MCP and JSON-RPC, the contact
//! form, probes, and the discovery documents.

use contract::contact::ContactLanguage;
use serde_json::{Value, json};

use super::schema_ref;

fn json_rpc_id() -> Value {
    json!({ "type": ["string", "integer"], "format": "int64" })
}

pub(super) fn mcp_request() -> Value {
    json!({
        "type": "object",
        "description": "One JSON-RPC 2.0 request (with `id`) or notification (without). \
            Batches are refused.",
        "properties": {
            "jsonrpc": { "const": "2.0" },
            "id": json_rpc_id(),
            "method": { "type": "string", "examples": ["initialize", "tools/list"] },
            "params": { "type": "object" }
        },
        "required": ["jsonrpc", "method"],
        "examples": [{
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "example-client", "version": "1.0.0" }
            }
        }]
    })
}

pub(super) fn mcp_response() -> Value {
    json!({
        "description": "The JSON-RPC 2.0 response to a request: a result, or an error for a \
            protocol-level fault on a well-formed request (e.g. unknown method, bad params).",
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "jsonrpc": { "const": "2.0" },
                    "id": json_rpc_id(),
                    "result": { "type": "object" }
                },
                "required": ["jsonrpc", "id", "result"]
            },
            schema_ref("JsonRpcError")
        ]
    })
}

pub(super) fn json_rpc_error() -> Value {
    json!({
        "type": "object",
        "description": "A JSON-RPC 2.0 error response. Transport faults (bad JSON, a batch, \
            a wrong content type or protocol version header) use -32700 or -32600 with a 4xx \
            status and a null `id`.",
        "properties": {
            "jsonrpc": { "const": "2.0" },
            "id": { "type": ["string", "integer", "null"], "format": "int64" },
            "error": {
                "type": "object",
                "properties": {
                    "code": {
                        "type": "integer",
                        "format": "int32",
                        "examples": [-32700, -32600, -32601, -32602, -32603]
                    },
                    "message": { "type": "string" },
                    "data": {}
                },
                "required": ["code", "message"]
            }
        },
        "required": ["jsonrpc", "id", "error"]
    })
}

pub(super) fn contact_challenge() -> Value {
    json!({
        "type": "object",
        "description": "An ALTCHA version 2 proof-of-work challenge. `signature` is the hex \
            HMAC-SHA256 of `parameters` serialised as JSON with sorted keys.",
        "properties": {
            "parameters": {
                "type": "object",
                "properties": {
                    "algorithm": { "type": "string", "examples": ["PBKDF2/SHA-256"] },
                    "nonce": { "type": "string", "pattern": "^[0-9a-f]+$" },
                    "salt": { "type": "string", "pattern": "^[0-9a-f]+$" },
                    "cost": { "type": "integer", "format": "int64", "minimum": 1 },
                    "keyLength": { "type": "integer", "format": "int32", "minimum": 1 },
                    "keyPrefix": { "type": "string", "pattern": "^[0-9a-f]*$" },
                    "keySignature": { "type": "string" },
                    "expiresAt": {
                        "type": "integer",
                        "format": "int64",
                        "description": "Unix time in seconds after which the challenge is refused."
                    },
                    "data": {
                        "type": "object",
                        "description": "`issuedAt`: Unix milliseconds when the challenge was issued.",
                        "additionalProperties": { "type": ["string", "number", "boolean"] }
                    }
                },
                "required": ["algorithm", "nonce", "salt", "cost", "keyLength", "keyPrefix"]
            },
            "signature": { "type": "string", "pattern": "^[0-9a-f]+$" }
        },
        "required": ["parameters", "signature"]
    })
}

pub(super) fn contact_submission() -> Value {
    json!({
        "type": "object",
        "description": "A human enquiry. Agents may prepare one for their user; only the human \
            submits it, after solving the challenge in the browser.",
        "properties": {
            "name": { "type": "string", "minLength": 1, "maxLength": 200 },
            "email": { "type": "string", "format": "email", "maxLength": 254 },
            "organisation": { "type": "string", "maxLength": 200 },
            "topic": { "type": "string", "minLength": 1, "maxLength": 100 },
            "message": { "type": "string", "minLength": 1, "maxLength": 5000 },
            "consent": {
                "type": "boolean",
                "const": true,
                "description": "Consent to processing the enquiry (a form checkbox sends `true`)."
            },
            "altcha": {
                "type": "string",
                "maxLength": 8192,
                "description": "Base64 of the solved challenge: \
                    `{\"challenge\": {parameters, signature}, \"solution\": {counter, derivedKey, time}}`."
            },
            "website": {
                "type": "string",
                "maxLength": 200,
                "description": "Leave empty: a trap field for bots. When filled, the usual answer \
                    comes back and nothing is stored."
            },
            "language": {
                "type": "string",
                "enum": ContactLanguage::codes(),
                "description": format!(
                    "The language of the page the form is sent from: the field errors and \
                    refusals are written in it, a form post is sent to that language's \
                    confirmation page, and the mail to the organisation names it. Without it, \
                    `{}`; another value is refused with `invalid_choice`.",
                    ContactLanguage::default().code()
                )
            }
        },
        "required": ["name", "email", "topic", "message", "consent", "altcha"]
    })
}

pub(super) fn contact_receipt() -> Value {
    json!({
        "type": "object",
        "description": "The enquiry was committed durably; mail follows from the outbox.",
        "properties": {
            "reference": {
                "type": "string",
                "pattern": "^ENQ-[0-9A-Z]{6}-[0-9A-Z]{6}$",
                "description": "Quote this in any follow-up; it is also in the mail's Message-ID."
            },
            "status": { "const": "received" }
        },
        "required": ["reference", "status"]
    })
}

pub(super) fn health() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": { "const": "ok" },
            "release": { "type": "string", "pattern": "^[0-9a-f]{16}$", "description": "The release this replica serves: the first 16 hex digits of the SHA-256 of its `manifest.json`, also sent as the `X-Release` header of its answers." }
        },
        "required": ["status", "release"]
    })
}

pub(super) fn readiness() -> Value {
    json!({
        "type": "object",
        "description": "Whether this replica can serve live data.",
        "properties": {
            "status": { "type": "string", "enum": ["ready", "not_ready"] },
            "checks": {
                "type": "object",
                "description": "Outcome per dependency, e.g. `database`.",
                "additionalProperties": { "type": "string", "enum": ["ok", "failing"] }
            }
        },
        "required": ["status", "checks"]
    })
}

pub(super) fn ai_catalog() -> Value {
    json!({
        "type": "object",
        "description": "AI Catalog (draft, `application/ai-catalog+json`).",
        "properties": {
            "specVersion": { "type": "string", "examples": ["1.0"] },
            "host": {
                "type": "object",
                "properties": {
                    "displayName": { "type": "string" },
                    "identifier": { "type": "string" },
                    "documentationUrl": { "type": "string", "format": "uri" }
                },
                "required": ["displayName"]
            },
            "entries": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "identifier": { "type": "string" },
                        "type": { "type": "string", "description": "Media type of the artifact." },
                        "url": { "type": "string", "format": "uri" },
                        "data": {},
                        "displayName": { "type": "string" },
                        "description": { "type": "string" },
                        "version": { "type": "string" },
                        "updatedAt": { "type": "string", "format": "date-time" }
                    },
                    "required": ["identifier", "type"],
                    // Exactly one of the two: an entry with both matches both
                    // branches, which `oneOf` rejects.
                    "oneOf": [{ "required": ["url"] }, { "required": ["data"] }]
                }
            }
        },
        "required": ["specVersion", "entries"]
    })
}

pub(super) fn api_catalog() -> Value {
    json!({
        "type": "object",
        "description": "RFC 9727 API catalog as an RFC 9264 JSON linkset.",
        "properties": {
            "linkset": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": { "anchor": { "type": "string", "format": "uri" } },
                    "required": ["anchor"],
                    "additionalProperties": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "href": { "type": "string", "format": "uri-reference" },
                                "type": { "type": "string" },
                                "title": { "type": "string" }
                            },
                            "required": ["href"]
                        }
                    }
                }
            }
        },
        "required": ["linkset"]
    })
}

pub(super) fn mcp_server_card() -> Value {
    json!({
        "type": "object",
        "description": "MCP Server Card (SEP-2127 draft): identity and connection details.",
        "properties": {
            "$schema": { "type": "string", "format": "uri" },
            "name": { "type": "string", "pattern": "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$" },
            "version": { "type": "string" },
            "description": { "type": "string", "minLength": 1, "maxLength": 100 },
            "title": { "type": "string", "minLength": 1, "maxLength": 100 },
            "websiteUrl": { "type": "string", "format": "uri" },
            "remotes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "type": { "type": "string", "enum": ["streamable-http", "sse"] },
                        "url": { "type": "string", "format": "uri" },
                        "supportedProtocolVersions": {
                            "type": "array",
                            "items": { "type": "string" }
                        }
                    },
                    "required": ["type", "url"]
                }
            },
            "_meta": { "type": "object" }
        },
        "required": ["$schema", "name", "version", "description"]
    })
}

pub(super) fn data_catalog() -> Value {
    json!({
        "type": "object",
        "description": "DCAT-AP 3 catalogue in JSON-LD: the catalogue, its datasets, their distributions and the data service, as one `@graph`.",
        "properties": {
            "@context": { "type": "object" },
            "@graph": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "@id": { "type": "string" },
                        "@type": { "type": "string" }
                    },
                    "required": ["@type"]
                }
            }
        },
        "required": ["@context", "@graph"]
    })
}

pub(super) fn openapi_document() -> Value {
    json!({
        "type": "object",
        "description": "This OpenAPI 3.1 document.",
        "properties": {
            "openapi": { "const": "3.1.0" },
            "info": { "type": "object" },
            "paths": { "type": "object" }
        },
        "required": ["openapi", "info", "paths"]
    })
}

pub(super) fn chat_request(languages: &[&str]) -> Value {
    json!({
        "type": "object",
        "description": "A visitor's question, with the last turns of the conversation so the service stays stateless.",
        "properties": {
            "message": { "type": "string", "minLength": 1, "maxLength": 1000, "description": "The question, in the visitor's own words (1–1,000 characters after trimming)." },
            "history": {
                "type": "array",
                "maxItems": 10,
                "description": "Earlier turns, oldest first; a short follow-up question is read together with the previous one.",
                "items": {
                    "type": "object",
                    "properties": {
                        "role": { "enum": ["user", "assistant"] },
                        "text": { "type": "string", "maxLength": 1000 }
                    },
                    "required": ["role", "text"],
                    "additionalProperties": false
                }
            },
            "language": {
                "enum": languages,
                "description": format!(
                    "The language to answer in and from: the pages in that language are searched, and the service's own sentences are in it. Without it, the site's default language (`{}`). A page sends its own `lang`.",
                    languages.first().copied().unwrap_or("en")
                )
            }
        },
        "required": ["message"],
        "additionalProperties": false,
        "examples": [{ "message": "How do I measure nitrate?" }]
    })
}

pub(super) fn chat_answer() -> Value {
    let link = json!({
        "type": "object",
        "properties": { "title": { "type": "string" }, "url": { "type": "string", "format": "uri" } },
        "required": ["title", "url"]
    });
    json!({
        "type": "object",
        "description": "An extractive answer: passages quoted exactly from the published pages, live figures from the platform statistics, or a plain statement that nothing published answers the question. Never generated text, never an action.",
        "properties": {
            "kind": { "enum": ["answer", "figures", "no_match", "declined"], "description": "`declined`: the question asks the service to act (send, submit, contact someone), which it never does." },
            "confidence": { "enum": ["high", "medium", "low"], "description": "How sure a passage answer is (`answer` and `figures` only). `high`: the first passage stands well ahead of any other; `medium`: ahead, worth checking the page; `low`: barely ahead, possibly not the answer (the hand-off is suggested). Below `low` the answer is `no_match`." },
            "text": { "type": "string", "description": "One or two sentences the service writes around the quotes: how sure it is, what they are, and that archive material is historical." },
            "citations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "quote": { "type": "string", "description": "An exact excerpt of the published text (figures: the values read)." },
                        "title": { "type": "string" },
                        "heading": { "type": "string" },
                        "url": { "type": "string", "format": "uri", "description": "The page with the heading's anchor." },
                        "historical": { "type": "boolean", "description": "Archive material: it records what was done, not current advice." },
                        "licence": { "type": "string" },
                        "attribution": { "type": "string" }
                    },
                    "required": ["quote", "title", "url", "historical"]
                }
            },
            "credits": {
                "type": "array",
                "description": "The licence and attribution of the quoted passages that carry them, once each for the whole answer.",
                "items": {
                    "type": "object",
                    "properties": { "licence": { "type": "string" }, "attribution": { "type": "string" } },
                    "required": ["licence"]
                }
            },
            "related": { "type": "array", "items": link },
            "statistics": {
                "type": "object",
                "properties": {
                    "generated_at": { "type": "string", "format": "date-time" },
                    "stale": { "type": "boolean" },
                    "values": { "type": "object", "additionalProperties": { "type": ["integer", "string", "null"], "format": "int64" } }
                },
                "required": ["generated_at", "stale", "values"]
            },
            "handoff": {
                "type": "object",
                "description": "The contact form, prefilled with the question; only the visitor sends it.",
                "properties": {
                    "url": { "type": "string", "format": "uri" },
                    "suggested": { "type": "boolean" },
                    "label": { "type": "string" }
                },
                "required": ["url", "suggested", "label"]
            },
            "notice": { "type": "string" },
            "release": { "type": "string", "pattern": "^[0-9a-f]{16}$", "description": "The release whose pages the citations quote (as `/healthz` names it)." }
        },
        "required": ["kind", "text", "citations", "related", "handoff", "notice", "release"]
    })
}
