//! The OpenAPI 3.1.0 contract (`dist/openapi.json`) between the generator and
//! the sidecar.
//!
//! The document skeleton is typed (the structs below) so a misspelt member is
//! a compile error, not a silently ignored key; schemas are JSON values. Every
//! map is a `BTreeMap`, so the same input always gives the same bytes.

pub mod oas30;
mod paths;
mod schemas;

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod schema_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use crate::model::{Material, ServiceInformation, Site};
use crate::origin::Origins;
use contract::ProblemCode;

pub use schemas::{MCP_PROTOCOL_VERSIONS, OBSERVATION_PARAMETERS, QUALITY_FLAGS, WATER_BODY_TYPES};

/// Version of the whole contract (`info.version`).
pub const CONTRACT_VERSION: &str = "1.0.0";
/// The OpenAPI version the document is written in.
pub const OPENAPI_VERSION: &str = "3.1.0";
/// JSON Schema dialect of every schema in the document.
pub const JSON_SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";
/// The CORS response header, documented on every response that can carry it.
const ALLOW_ORIGIN: &str = "Access-Control-Allow-Origin";

#[derive(Serialize)]
struct Document {
    openapi: &'static str,
    #[serde(rename = "jsonSchemaDialect")]
    json_schema_dialect: &'static str,
    info: Info,
    servers: Vec<Server>,
    /// Always empty: no route takes credentials. Stated rather than left
    /// out, so readers and linters see "public" instead of "undocumented".
    security: Vec<BTreeMap<&'static str, Vec<&'static str>>>,
    tags: Vec<Tag>,
    paths: BTreeMap<&'static str, PathItem>,
    components: Components,
    #[serde(rename = "externalDocs")]
    external_docs: ExternalDocs,
}

#[derive(Serialize)]
struct Info {
    title: String,
    summary: String,
    description: String,
    version: &'static str,
    contact: Contact,
    license: License,
}

#[derive(Serialize)]
struct Contact {
    name: String,
    url: String,
    email: String,
}

/// OpenAPI 3.1 allows `identifier` (SPDX) or `url`, not both.
#[derive(Serialize)]
struct License {
    name: String,
    identifier: String,
}

#[derive(Clone, Serialize)]
struct Server {
    url: String,
    description: &'static str,
    /// Whether the server is for internal callers only; every one here is
    /// public.
    #[serde(rename = "x-internal")]
    internal: bool,
}

#[derive(Serialize)]
struct Tag {
    name: &'static str,
    description: &'static str,
}

#[derive(Serialize)]
struct ExternalDocs {
    url: String,
    description: &'static str,
}

#[derive(Default, Serialize)]
struct PathItem {
    /// Only on the sidecar's paths of a site with a separate API origin.
    #[serde(skip_serializing_if = "Option::is_none")]
    servers: Option<Vec<Server>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    get: Option<Operation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    post: Option<Operation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Operation {
    operation_id: &'static str,
    summary: &'static str,
    description: String,
    tags: [&'static str; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parameters: Vec<RefOr<Parameter>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_body: Option<RequestBody>,
    responses: BTreeMap<&'static str, RefOr<Response>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum RefOr<T> {
    Ref {
        #[serde(rename = "$ref")]
        target: String,
    },
    Item(T),
}

#[derive(Serialize)]
struct Parameter {
    name: &'static str,
    #[serde(rename = "in")]
    location: &'static str,
    description: &'static str,
    required: bool,
    schema: Value,
}

#[derive(Serialize)]
struct RequestBody {
    description: &'static str,
    required: bool,
    content: BTreeMap<&'static str, MediaType>,
}

#[derive(Default, Serialize)]
struct Response {
    description: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    headers: BTreeMap<&'static str, RefOr<Header>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    content: BTreeMap<&'static str, MediaType>,
}

#[derive(Serialize)]
struct MediaType {
    schema: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    example: Option<Value>,
}

#[derive(Serialize)]
struct Header {
    description: &'static str,
    schema: Value,
}

#[derive(Serialize)]
struct Components {
    schemas: BTreeMap<String, Value>,
    responses: BTreeMap<&'static str, Response>,
    parameters: BTreeMap<&'static str, Parameter>,
    headers: BTreeMap<&'static str, Header>,
}

fn reference<T>(kind: &str, name: &str) -> RefOr<T> {
    RefOr::Ref {
        target: format!("#/components/{kind}/{name}"),
    }
}

fn media(schema: Value) -> MediaType {
    MediaType {
        schema,
        example: None,
    }
}

fn text() -> Value {
    json!({ "type": "string" })
}

impl Response {
    fn new(description: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            ..Self::default()
        }
    }

    fn body(mut self, media_type: &'static str, schema: Value) -> Self {
        self.content.insert(media_type, media(schema));
        self
    }

    fn headers(mut self, names: &[&'static str]) -> Self {
        for name in names {
            self.headers.insert(name, reference("headers", name));
        }
        self
    }
}

/// Builds the OpenAPI document for a site served at `origins` (the site's
/// files at `origins.site`, the sidecar's routes at `origins.api()`, each
/// of those paths then naming its server). `translated` holds the codes of
/// the languages other than the default that have pages (their contact
/// pages are named too). Deterministic: the same input gives the same value.
pub fn document(
    origins: &Origins,
    site: &Site,
    service: &ServiceInformation,
    translated: &[&str],
) -> Value {
    let base_url = origins.site.as_str();
    // The contract is service information: its licence is the grant that
    // covers that material (as `service.json` states), else the default.
    let licence_id = service
        .guardrails
        .licences
        .iter()
        .find(|g| g.covers.contains(&Material::ServiceInformation))
        .map_or(&site.default_licence, |g| &g.licence);
    let licence_name = site
        .licences
        .iter()
        .find(|l| &l.id == licence_id)
        .map_or_else(|| licence_id.to_string(), |l| l.title.clone());
    let doc = Document {
        openapi: OPENAPI_VERSION,
        json_schema_dialect: JSON_SCHEMA_DIALECT,
        info: Info {
            title: format!("{} public API", service.name),
            summary: format!(
                "Read-only public information and open data of {}, for people, developers and AI agents.",
                service.name
            ),
            description: info_description(origins, site, service, translated),
            version: CONTRACT_VERSION,
            contact: Contact {
                name: service.name.clone(),
                url: service.contact.form_url.absolute(base_url),
                email: service.contact.email.to_string(),
            },
            license: License {
                name: licence_name,
                identifier: licence_id.to_string(),
            },
        },
        servers: vec![Server {
            url: base_url.to_owned(),
            description: "The service's canonical origin.",
            internal: false,
        }],
        security: Vec::new(),
        tags: vec![
            tag("service", "The service information and this contract."),
            tag(
                "discovery",
                "Documents that let crawlers and agents find everything else.",
            ),
            tag("live-data", "Public data computed from the database."),
            tag("mcp", "The Model Context Protocol endpoint for agents."),
            tag("contact", "The human enquiry form."),
            tag(
                "chat",
                "Questions answered from the published documents, for visitors of the site.",
            ),
            tag("operations", "Health and readiness of a replica."),
        ],
        paths: paths::all(origins.separate_api.as_deref()),
        components: Components {
            schemas: schemas::all(
                base_url,
                &std::iter::once(site.language.as_str())
                    .chain(site.translations().map(|l| l.code.as_str()))
                    .collect::<Vec<_>>(),
            ),
            responses: error_responses(base_url),
            parameters: BTreeMap::from([(
                "IfNoneMatch",
                Parameter {
                    name: "If-None-Match",
                    location: "header",
                    description: "An ETag from an earlier response: when it still matches, the \
                        answer is 304 without a body.",
                    required: false,
                    schema: text(),
                },
            )]),
            headers: headers(),
        },
        external_docs: ExternalDocs {
            url: format!("{base_url}/docs/"),
            description: "Documentation for people, with a Markdown twin of every page.",
        },
    };
    serde_json::to_value(doc).expect("the document serialises to JSON")
}

fn tag(name: &'static str, description: &'static str) -> Tag {
    Tag { name, description }
}

fn info_description(
    origins: &Origins,
    site: &Site,
    service: &ServiceInformation,
    translated: &[&str],
) -> String {
    let base_url = origins.site.as_str();
    let thanks = contract::routes::CONTACT_THANKS;
    // Each other language's thank-you page, under its code (decision 0267).
    let others: Vec<String> = translated
        .iter()
        .map(|code| format!("`/{code}{thanks}` in `{code}`"))
        .collect();
    let thanks_pages = if others.is_empty() {
        format!("`{thanks}`")
    } else {
        format!("`{thanks}` ({})", others.join(", "))
    };
    let form = service.contact.form_url.absolute(base_url);
    let at = match &origins.separate_api {
        None => format!("at {base_url}"),
        Some(api) => format!(
            "at {base_url}, whose live routes, MCP endpoint, contact and chat routes are \
            served from {api} (each of those paths names its server)"
        ),
    };
    format!(
        "{description}\n\n\
        This contract lists every machine-readable route of {title} {at}. \
        Pages are not operations: the home page, `/docs/…` and the other HTML pages (each with \
        a Markdown twin, `index.md` beside `index.html`, for agents) and the content-hashed \
        files under `/assets/` are listed in `/sitemap.xml` and `/llms.txt` instead. A page's \
        own URL answers its twin (`text/markdown; charset=utf-8`) to a request whose `Accept` \
        names `text/markdown` at a quality no lower than HTML's, and the HTML otherwise; both \
        answers carry `Vary: Accept`. The other \
        static files are the file archive's downloads under `/files/…` (listed on its page), \
        the citable data snapshots under `/snapshots/…` (listed on the open-data page), \
        the search indexes the site's scripts read (`/search-index.json`, \
        `/search-passages.json` and the parts under `/search/` they list), the page for unknown addresses `/404.html` and the contact \
        form's thank-you page {thanks_pages}.\n\n\
        HEAD is answered wherever GET is, with the same headers and no body; it is not listed \
        as a separate operation.\n\n\
        Everything here is read-only: no GET route and no MCP tool changes state or contacts \
        anyone. An agent may prepare an enquiry for its user, but only the human submits it, \
        through the form at {form}.\n\n\
        Errors are RFC 9457 problem objects (`application/problem+json`); each `type` is the \
        page `{base_url}/docs/problems/<code>/` that explains its stable `code`. The MCP \
        endpoint reports faults as JSON-RPC errors instead.\n\n\
        Static documents carry a strong ETag per content-coding and answer a matching \
        `If-None-Match` with 304. Every 429 and 503 carries `Retry-After`. Public read-only \
        routes and `/mcp/` allow any origin without credentials; the contact routes accept \
        only the site's own origin.",
        description = service.description.trim(),
        title = site.title,
    )
}

fn headers() -> BTreeMap<&'static str, Header> {
    let header = |description, schema| Header {
        description,
        schema,
    };
    BTreeMap::from([
        (
            "ETag",
            header(
                "Strong entity tag of this representation (distinct per content-coding).",
                text(),
            ),
        ),
        (
            "Cache-Control",
            header("How long the response may be reused.", text()),
        ),
        (
            "Vary",
            header(
                "Request headers that select the representation (`Accept-Encoding`, `Origin`).",
                text(),
            ),
        ),
        (
            "Retry-After",
            header(
                "Seconds to wait before trying again.",
                json!({ "type": "integer", "format": "int32", "minimum": 0 }),
            ),
        ),
        (
            ALLOW_ORIGIN,
            header(
                "`*` on the public routes. On the contact and chat routes, the request's \
                `Origin` when it is one of the site's own origins, and absent otherwise.",
                text(),
            ),
        ),
        ("Allow", header("The methods this route takes.", text())),
        (
            "Location",
            header(
                "Where to go next.",
                json!({ "type": "string", "format": "uri-reference" }),
            ),
        ),
    ])
}

/// An example problem for `status`, when a documented code has that status.
fn problem_example(base_url: &str, status: u16) -> Option<Value> {
    let p = ProblemCode::with_status(status).next()?;
    Some(json!({
        "type": format!("{base_url}/docs/problems/{}/", p.as_str()),
        "title": p.title(),
        "status": p.status(),
        "code": p.as_str(),
    }))
}

fn error_responses(base_url: &str) -> BTreeMap<&'static str, Response> {
    let problem = |status: u16, description: &str, headers: &[&'static str]| {
        let mut response = Response::new(description).headers(headers);
        if status != 403 {
            response = response.headers(&[ALLOW_ORIGIN]);
        }
        response.content.insert(
            "application/problem+json",
            MediaType {
                schema: schemas::schema_ref("Problem"),
                example: problem_example(base_url, status),
            },
        );
        response
    };
    let mut responses = BTreeMap::from([
        (
            "BadRequest",
            problem(
                400,
                "The request or a query parameter is malformed; `errors` names the fields.",
                &[],
            ),
        ),
        (
            // Refused because of its origin, so without the CORS header.
            "Forbidden",
            problem(
                403,
                "The request came from an origin this route does not accept.",
                &["Vary"],
            ),
        ),
        (
            "MethodNotAllowed",
            problem(
                405,
                "The route does not take this method; `Allow` lists those it takes.",
                &["Allow"],
            ),
        ),
        (
            "RequestTimeout",
            problem(
                408,
                "The request was not received completely within the server's request timeout.",
                &[],
            ),
        ),
        (
            "PayloadTooLarge",
            problem(
                413,
                "The request body is larger than this route accepts.",
                &[],
            ),
        ),
        (
            "UnsupportedMediaType",
            problem(
                415,
                "The request body's media type is not accepted here.",
                &[],
            ),
        ),
        (
            "TooManyRequests",
            problem(429, "Too many requests from this client.", &["Retry-After"]),
        ),
        (
            "NotFound",
            problem(
                404,
                "Nothing exists at this path: an unknown collection or feature.",
                &[],
            ),
        ),
        (
            "InternalError",
            problem(500, "A fault on the service's side.", &[]),
        ),
        (
            "ServiceUnavailable",
            problem(
                503,
                "Overloaded, starting, or a dependency is unreachable.",
                &["Retry-After"],
            ),
        ),
    ]);
    responses.insert(
        "NotModified",
        Response::new("The representation matching `If-None-Match` is still current.").headers(&[
            "ETag",
            "Cache-Control",
            "Vary",
            ALLOW_ORIGIN,
        ]),
    );
    responses
}
