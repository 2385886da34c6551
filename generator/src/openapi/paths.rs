//! `paths`: one operation per route of the contract's route table.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{
    ALLOW_ORIGIN, MediaType, Operation, Parameter, PathItem, RefOr, RequestBody, Response, Server,
    media, reference, schemas, text,
};
use crate::manifest;
use contract::ProblemCode;
use contract::observations::{
    CURSOR_MAX, DEFAULT_LIMIT, FORMATS, MAX_LIMIT, PRECISION_DECIMALS, SITE_ID_MAX, SITE_ID_PATTERN,
};
use contract::routes::{self, Endpoint, Method, Route, RouteId, StaticFile};
use schemas::{MCP_PROTOCOL_VERSIONS, OBSERVATION_PARAMETERS};

mod features;
mod trend;

/// How an operation can fail, beyond the 405/500/503 every route can answer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Errors {
    /// A static or parameterless GET.
    Plain,
    /// A GET with validated query parameters.
    Query,
    /// A POST with a request body.
    Body,
}

impl Operation {
    fn new(operation_id: &'static str, tag: &'static str, summary: &'static str) -> Self {
        Self {
            operation_id,
            summary,
            description: String::new(),
            tags: [tag],
            parameters: Vec::new(),
            request_body: None,
            responses: BTreeMap::new(),
        }
    }

    fn describe(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Adds an answer of this operation; the sidecar's CORS layer decorates
    /// every answer of a route, so each one documents the header.
    fn respond(mut self, status: &'static str, response: Response) -> Self {
        let response = response.headers(&[ALLOW_ORIGIN]);
        self.responses.insert(status, RefOr::Item(response));
        self
    }

    fn respond_with(mut self, status: &'static str, component: &str) -> Self {
        self.responses
            .insert(status, reference("responses", component));
        self
    }

    /// Adds `If-None-Match` and the 304 answer to a cacheable GET.
    fn conditional(mut self) -> Self {
        self.parameters.push(reference("parameters", "IfNoneMatch"));
        self.respond_with("304", "NotModified")
    }

    fn errors(self, kind: Errors) -> Self {
        let mut op = self
            .respond_with("405", "MethodNotAllowed")
            .respond_with("500", "InternalError")
            .respond_with("503", "ServiceUnavailable");
        if kind != Errors::Plain {
            op = op.respond_with("400", "BadRequest");
        }
        if kind == Errors::Body {
            op = op
                .respond_with("408", "RequestTimeout")
                .respond_with("413", "PayloadTooLarge")
                .respond_with("415", "UnsupportedMediaType")
                .respond_with("429", "TooManyRequests");
        }
        op
    }
}

/// A GET of a file the generator writes to `dist/`.
fn static_get(
    op: Operation,
    route: &Route,
    file: StaticFile,
    schema: Value,
    description: &str,
) -> Operation {
    let policy = manifest::cache_policy(file.file());
    let summary = op.summary;
    op.describe(format!("{description} Static; `Cache-Control: {policy}`."))
        .respond(
            "200",
            Response::new(summary)
                .body(route.media_types[0], schema)
                .headers(&["ETag", "Cache-Control", "Vary"]),
        )
        .conditional()
        .errors(Errors::Plain)
}

/// A GET the sidecar computes and caches briefly.
fn live_get(op: Operation, response: Response) -> Operation {
    op.respond("200", response.headers(&["ETag", "Cache-Control", "Vary"]))
        .conditional()
}

/// One path item per path of the route table (an alias gets its own
/// operation id). With a separate API origin, the sidecar's paths name it.
pub(super) fn all(api_origin: Option<&str>) -> BTreeMap<&'static str, PathItem> {
    let api_servers = api_origin.map(|url| {
        vec![Server {
            url: url.to_owned(),
            description: "The sidecar's origin, which answers this route.",
            internal: false,
        }]
    });
    let mut paths = BTreeMap::new();
    for route in routes::ROUTES {
        let named = std::iter::once((route.path, route.operation_id, route.summary))
            .chain(route.alias.map(|a| (a.path, a.operation_id, a.summary)));
        for (path, id, summary) in named {
            let op = operation(route, Operation::new(id, route.tag, summary));
            let (get, post) = match route.method {
                Method::Get => (Some(op), None),
                Method::Post => (None, Some(op)),
            };
            let servers = match route.id {
                RouteId::Sidecar(_) => api_servers.clone(),
                RouteId::Static(_) => None,
            };
            let item = PathItem { servers, get, post };
            paths.insert(path, item);
        }
    }
    paths
}

/// The contract's operation for a route. The match is exhaustive: a route
/// added to the table without an operation here does not compile.
fn operation(route: &Route, op: Operation) -> Operation {
    let sr = schemas::schema_ref;
    let endpoint = match route.id {
        RouteId::Static(file) => {
            let (schema, description) = match file {
                StaticFile::ServiceInformation => (
                    sr("ServiceInformation"),
                    "Services, projects, evidence, scope, consortium, contact and guardrails for agents. Stable URL.",
                ),
                StaticFile::OpenApi => (
                    sr("OpenApiDocument"),
                    "Always revalidate: clients should never act on a stale contract.",
                ),
                StaticFile::AiCatalog => (
                    sr("AiCatalog"),
                    "A small, fixed list of same-origin entries: MCP server card, this contract, service information, llms.txt and the documentation.",
                ),
                StaticFile::ApiCatalog => (
                    sr("ApiCatalog"),
                    "Served with `profile=\"https://www.rfc-editor.org/info/rfc9727\"`; HEAD answers with a `Link: <…>; rel=\"api-catalog\"` header.",
                ),
                StaticFile::McpServerCard => (
                    sr("McpServerCard"),
                    "Identity, endpoint and protocol versions of the MCP server, readable before connecting.",
                ),
                StaticFile::McpServerCardWellKnown => (
                    sr("McpServerCard"),
                    "The same MCP server card, at the location the current server-card proposal (SEP-2127) names, as plain JSON.",
                ),
                StaticFile::FeaturesOpenApi => (
                    sr("OpenApi30Document"),
                    "The OGC API – Features routes of this contract in OpenAPI 3.0, for GIS clients.",
                ),
                StaticFile::DataCatalog => (
                    sr("DataCatalog"),
                    "DCAT-AP 3 JSON-LD for data portals. The same facts are on each dataset's page as schema.org `Dataset` JSON-LD.",
                ),
                StaticFile::LlmsTxt => (
                    text(),
                    "Markdown (llmstxt.org): summary, guardrails, then links to the API and the Markdown twin of every page.",
                ),
                StaticFile::Sitemap => (
                    text(),
                    "sitemaps.org XML with each page's last modification date.",
                ),
                StaticFile::Feed => (
                    text(),
                    "Atom (RFC 4287): the most recently updated documents, newest first, each with its page and its Markdown twin.",
                ),
                StaticFile::RobotsTxt => (
                    text(),
                    "Everything may be crawled except the contact and MCP endpoints.",
                ),
                StaticFile::SecurityTxt => (
                    text(),
                    "Where to report a vulnerability; expires less than a year after the content date.",
                ),
            };
            return static_get(op, route, file, schema, description);
        }
        RouteId::Sidecar(endpoint) => endpoint,
    };
    let media = route.media_types[0];
    match endpoint {
        Endpoint::PlatformStats => live_get(op, Response::new("Current figures.").body(media, sr("PlatformStats")))
            .describe("Counts computed from the database and cached briefly; `stale` is true when older figures are served because the database could not be read.")
            .errors(Errors::Plain),
        Endpoint::ObservationsData => observations(op),
        Endpoint::GlobeData => live_get(op, Response::new("Every public site as a point.").body(media, sr("GlobeData")))
            .describe("One point per site for the globe page. Coordinates are rounded to `precision_decimals` places to protect volunteers' privacy.")
            .errors(Errors::Plain),
        Endpoint::ObservationTrend => trend::operation(op),
        Endpoint::Mcp => mcp(op),
        Endpoint::ContactChallenge => contact_challenge(op),
        Endpoint::Contact => contact(op),
        Endpoint::Chat => chat(op),
        Endpoint::Healthz => probe(op, "The process is up.", media, sr("Health")),
        Endpoint::Readyz => probe(op, "Ready to serve live data.", media, sr("Readiness"))
            .respond("503", readiness_failure()),
        Endpoint::FeaturesLanding
        | Endpoint::FeaturesConformance
        | Endpoint::FeaturesCollections
        | Endpoint::FeaturesCollection
        | Endpoint::FeaturesItems
        | Endpoint::FeaturesItem
        | Endpoint::FeaturesQueryables => features::operation(endpoint, op),
    }
}

/// The selection the observation pages and the trend share: `site`,
/// `from`, `to` and `bbox`.
fn selection() -> [RefOr<Parameter>; 4] {
    let date_or_time = json!({
        "type": "string",
        "anyOf": [{ "format": "date" }, { "format": "date-time" }],
        "examples": ["2026-01-31", "2026-01-31T12:00:00Z"]
    });
    [
        query(
            "site",
            "Only this site (`site_id`).",
            json!({ "type": "string", "maxLength": SITE_ID_MAX, "pattern": SITE_ID_PATTERN, "examples": ["nl-0001"] }),
        ),
        query(
            "from",
            "Observed at or after this date or time (UTC).",
            date_or_time.clone(),
        ),
        query(
            "to",
            "Observed before or at this date or time (UTC); a date includes its whole day.",
            date_or_time,
        ),
        query(
            "bbox",
            "Only sites inside `minLon,minLat,maxLon,maxLat` (WGS 84 degrees).",
            json!({
                "type": "string",
                "pattern": "^-?[0-9]+(\\.[0-9]+)?(,-?[0-9]+(\\.[0-9]+)?){3}$",
                "examples": ["3.3,50.7,7.3,53.6"]
            }),
        ),
    ]
}

fn query(name: &'static str, description: &'static str, schema: Value) -> RefOr<Parameter> {
    RefOr::Item(Parameter {
        name,
        location: "query",
        description,
        required: false,
        schema,
    })
}

fn observations(op: Operation) -> Operation {
    let mut op = live_get(
        op,
        Response::new("One page of observations, newest first.")
            .body("application/json", schemas::schema_ref("ObservationPage"))
            .body("text/csv", json!({
                "type": "string",
                "description": "The same page as CSV with a header row; columns are the `Observation` members."
            })),
    )
    .describe(format!(
        "Filter by parameter, site, time window and bounding box. Pages are bounded by `limit`; \
        follow `next_cursor` for more. Data licence and attribution travel with every page \
        (as members in JSON; as `Link` headers with `rel=\"license\"` and `rel=\"next\"` in CSV). \
        Coordinates are rounded to {PRECISION_DECIMALS} decimal places. An unknown query \
        parameter is a 400 with code `{}`, an invalid value a 400 with code `{}`; both name \
        the parameter in `detail` and `errors`.",
        ProblemCode::UnknownParameter,
        ProblemCode::InvalidParameter,
    ))
    .errors(Errors::Query);
    let [site, from, to, bbox] = selection();
    op.parameters.extend([
        query(
            "parameter",
            "Only this measured parameter.",
            json!({ "type": "string", "enum": OBSERVATION_PARAMETERS }),
        ),
        site,
        from,
        to,
        bbox,
        query(
            "limit",
            "Page size.",
            json!({ "type": "integer", "format": "int32", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT }),
        ),
        query(
            "cursor",
            "Opaque `next_cursor` of the previous page.",
            json!({ "type": "string", "minLength": 1, "maxLength": CURSOR_MAX }),
        ),
        query(
            "format",
            "Representation of the page.",
            json!({ "type": "string", "enum": FORMATS, "default": FORMATS[0] }),
        ),
    ]);
    op
}

fn json_rpc_error_response(description: &str, code: i64, message: &str) -> Response {
    let mut response = Response::new(description);
    response.content.insert(
        "application/json",
        MediaType {
            schema: schemas::schema_ref("JsonRpcError"),
            example: Some(json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": { "code": code, "message": message }
            })),
        },
    );
    response
}

fn mcp(op: Operation) -> Operation {
    let versions = MCP_PROTOCOL_VERSIONS.join(", ");
    let mut op = op
        .describe(format!(
            "Stateless Streamable HTTP: one JSON-RPC 2.0 object per POST, answered with one JSON \
            object; no sessions and no server-sent events (GET answers 405). Protocol versions \
            {versions}. `/mcp` and `/mcp/` are the same endpoint; neither redirects. Every tool is \
            read-only."
        ))
        .respond(
            "200",
            Response::new("The response to a request, including protocol-level JSON-RPC errors.")
                .body("application/json", schemas::schema_ref("McpResponse"))
                .headers(&["Cache-Control"]),
        )
        .respond(
            "202",
            Response::new("A notification was accepted; no body."),
        )
        .respond_with("405", "MethodNotAllowed")
        .respond_with("408", "RequestTimeout")
        .respond_with("413", "PayloadTooLarge")
        .respond_with("429", "TooManyRequests")
        .respond_with("500", "InternalError")
        .respond_with("503", "ServiceUnavailable")
        .respond(
            "400",
            json_rpc_error_response(
                "Unparseable JSON (-32700), a batch or malformed request, or an unsupported \
                `MCP-Protocol-Version` (-32600).",
                -32600,
                "Invalid Request",
            ),
        )
        .respond(
            "415",
            json_rpc_error_response(
                "The body is not `application/json` (-32600).",
                -32600,
                "Invalid Request",
            ),
        );
    op.parameters.push(RefOr::Item(Parameter {
        name: "MCP-Protocol-Version",
        location: "header",
        description: "The negotiated protocol version; ignored on `initialize`, checked on every \
            other request.",
        required: false,
        schema: json!({ "type": "string", "examples": MCP_PROTOCOL_VERSIONS }),
    }));
    op.request_body = Some(RequestBody {
        description: "One JSON-RPC 2.0 request or notification.",
        required: true,
        content: BTreeMap::from([("application/json", media(schemas::schema_ref("McpRequest")))]),
    });
    op
}

fn contact_challenge(op: Operation) -> Operation {
    op.describe(
        "A fresh ALTCHA proof-of-work challenge for the contact form, solved in the browser. \
            Issuing costs the server a key derivation, so this route is rate-limited.",
    )
    .respond(
        "200",
        Response::new("A new challenge; never cached.")
            .body("application/json", schemas::schema_ref("ContactChallenge"))
            .headers(&["Cache-Control", "Vary"]),
    )
    .respond_with("429", "TooManyRequests")
    .errors(Errors::Plain)
}

fn contact(op: Operation) -> Operation {
    let submission = || media(schemas::schema_ref("ContactSubmission"));
    let mut op = op
        .describe(
            "Accepts an enquiry from the site's own contact page only. It is acknowledged after \
            it is committed durably; mail follows from an outbox. A JSON body is answered with \
            201, a form post with a 303 redirect to the confirmation page. Agents must not call \
            this route: they may prepare an enquiry, and the human submits it.",
        )
        .respond(
            "201",
            Response::new("The enquiry was received.")
                .body("application/json", schemas::schema_ref("ContactReceipt"))
                .headers(&["Cache-Control", "Vary"]),
        )
        .respond(
            "303",
            Response::new("The form post was received; `Location` is the confirmation page.")
                .headers(&["Location", "Cache-Control", "Vary"]),
        )
        .respond_with("403", "Forbidden")
        .respond("422", contact_refusal())
        .errors(Errors::Body);
    op.request_body = Some(RequestBody {
        description: "The enquiry, as JSON or as an HTML form post.",
        required: true,
        content: BTreeMap::from([
            ("application/json", submission()),
            ("application/x-www-form-urlencoded", submission()),
        ]),
    });
    op
}

fn chat(op: Operation) -> Operation {
    let mut op = op
        .describe(
            "Answers a visitor's question from what the service has published: passages of the \
            documentation quoted exactly (ranked with BM25 over the search index's text, with \
            synonyms), each cited with its page and heading anchor, and licence and attribution \
            for archive material; live figures from the platform statistics with their time; or \
            a plain `no_match` with the closest pages. Every answer carries a hand-off: the \
            contact form prefilled with the question, which only the visitor sends. A question \
            asking the service to act is `declined`. Accepts the site's own origins only: a \
            request with another `Origin`, or with neither `Origin` nor `Sec-Fetch-Site: \
            same-origin` (a script or an agent calling directly), is refused with 403 \
            `forbidden_origin`; agents ask through the MCP endpoint instead. It is \
            rate-limited per client, and stores and logs nothing of the question.",
        )
        .respond(
            "200",
            Response::new("The answer.")
                .body("application/json", schemas::schema_ref("ChatAnswer"))
                .headers(&["Cache-Control", "Vary"]),
        )
        .respond_with("403", "Forbidden")
        .respond(
            "422",
            Response::new(
                "The question was refused: `invalid_submission`, each field in `errors` with \
                `name`, `reason` and a `code` (`required`, `too_long`, `invalid_type`, \
                `invalid_characters`, `invalid_format`, `invalid_choice` for a language the \
                site has no pages in).",
            )
            .body("application/problem+json", schemas::schema_ref("Problem"))
            .headers(&["Cache-Control", "Vary"]),
        )
        .errors(Errors::Body);
    op.request_body = Some(RequestBody {
        description: "The question.",
        required: true,
        content: BTreeMap::from([(
            "application/json",
            media(schemas::schema_ref("ChatRequest")),
        )]),
    });
    op
}

/// The problem codes of the contact form's 422, in the order the contract lists them.
const CONTACT_REFUSALS: [ProblemCode; 6] = [
    ProblemCode::InvalidSubmission,
    ProblemCode::ChallengeMissing,
    ProblemCode::ChallengeInvalid,
    ProblemCode::ChallengeExpired,
    ProblemCode::ChallengeReplayed,
    ProblemCode::SubmittedTooFast,
];

/// 422 of the contact form: invalid fields (listed in `errors`, each with a
/// stable `code`) or a refused human-verification challenge.
fn contact_refusal() -> Response {
    Response::new(
        "The enquiry was refused and nothing was stored. `invalid_submission`: fields to \
        correct, each in `errors` with `name`, `reason` and a `code` (`required`, `too_long`, \
        `invalid_type`, `invalid_characters`, `invalid_format`, `invalid_choice`, \
        `consent_required`). `challenge_missing`, `challenge_invalid`, `challenge_expired`, \
        `challenge_replayed`: fetch a new challenge and solve it. `submitted_too_fast`: wait \
        a few seconds and submit again.",
    )
    .body(
        "application/problem+json",
        json!({
            "allOf": [schemas::schema_ref("Problem")],
            "properties": {
                "code": { "enum": CONTACT_REFUSALS.map(ProblemCode::as_str) },
                "errors": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": { "type": "string" },
                            "reason": { "type": "string" },
                            "code": { "type": "string", "enum": [
                                "required", "too_long", "invalid_type", "invalid_characters",
                                "invalid_format", "invalid_choice", "consent_required"
                            ] }
                        },
                        "required": ["name", "reason", "code"]
                    }
                }
            }
        }),
    )
    .headers(&["Cache-Control", "Vary"])
}

fn probe(op: Operation, ok: &'static str, media_type: &'static str, schema: Value) -> Operation {
    op.describe(format!("{ok} Never cached."))
        .respond(
            "200",
            Response::new(ok)
                .body(media_type, schema)
                .headers(&["Cache-Control"]),
        )
        .errors(Errors::Plain)
}

/// Readiness fails as a problem object that also carries the checks.
fn readiness_failure() -> Response {
    let schema = json!({
        "allOf": [
            schemas::schema_ref("Problem"),
            {
                "type": "object",
                "properties": {
                    "checks": {
                        "type": "object",
                        "additionalProperties": { "type": "string", "enum": ["ok", "failing"] }
                    }
                }
            }
        ]
    });
    let mut response =
        Response::new("Not ready: a dependency such as the database is unreachable.")
            .headers(&["Retry-After", "Cache-Control"]);
    response
        .content
        .insert("application/problem+json", media(schema));
    response
}
