//! OGC API – Features (Part 1: Core, with the GeoJSON and HTML classes;
//! decision 0049) over the public sites and observations: the same store
//! queries and the same privacy rules as the other live routes (private
//! sites absent, locations rounded to [`super::PRECISION_DECIMALS`] places,
//! a `bbox` matched on the rounded locations).
//!
//! - `/api/features`: landing page (links to the contract, the API
//!   reference, the conformance classes and the collections);
//! - `/api/features/conformance`;
//! - `/api/features/collections` and `…/collections/{sites|observations}`,
//!   each with its spatial and temporal extent from the data;
//! - `…/items`: a GeoJSON FeatureCollection filtered by `bbox`,
//!   `datetime` and the queryables, at most `limit` features, with a `next` link while there
//!   are more (sites by name order, observations newest first);
//! - `…/items/{featureId}`: one feature (a site's id, an observation's
//!   number), or a 404 problem;
//! - `…/queryables` (Part 3): a JSON Schema of the properties the items
//!   route filters on by equality, each a query parameter there.
//!
//! Every items page carries `numberMatched`, counted with the page's
//! filters (decision 0210): GDAL learns a layer's size from it in one
//! request instead of paging through the whole collection.
//!
//! Every document is JSON (GeoJSON for features) or HTML, chosen by `f`,
//! else by `Accept` (HTML only when it prefers `text/html`). Links are
//! absolute, on the origin the build records for the sidecar's routes
//! (its API origin, else the site's), as clients such as GDAL expect.

mod documents;
mod html;
pub mod query;
mod queryables;

use std::sync::Arc;

use bytes::Bytes;
use contract::routes::Endpoint;
use http::Response;
use http::header;
use http::request::Parts;
use serde_json::Value;

use super::stats::Got;
use super::{Live, Rendered, with_cors};
use crate::Body;
use crate::http::problem::{Code, Problem};
use crate::published::Published;
use crate::store::SiteSummary;
use query::{
    FeaturesQuery, Format, OBSERVATIONS_ITEMS_PARAMETERS, OTHER_PARAMETERS, SITES_ITEMS_PARAMETERS,
};

/// The two collections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collection {
    Sites,
    Observations,
}

impl Collection {
    pub const ALL: [Collection; 2] = [Collection::Sites, Collection::Observations];

    pub fn id(self) -> &'static str {
        match self {
            Collection::Sites => "sites",
            Collection::Observations => "observations",
        }
    }

    fn find(id: &str) -> Option<Collection> {
        Collection::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// The public sites with their aggregates, as read at most once per
/// `globe_max_age`.
pub(crate) type Sites = Vec<SiteSummary>;

/// Where links point: the sidecar's routes, and the site's pages.
pub(crate) struct Origins<'a> {
    pub api: &'a str,
    pub site: &'a str,
}

/// A document of these routes before it is encoded: JSON, and what its HTML
/// page shows.
pub(crate) struct Doc {
    json: Value,
    kind: Kind,
}

/// What a JSON document is: plain JSON, GeoJSON, or a JSON Schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Json,
    Geo,
    Schema,
}

/// Whether the request asks for HTML: `f=html`, or an `Accept` that rates
/// `text/html` above JSON.
fn wants_html(format: Option<Format>, parts: &Parts) -> bool {
    match format {
        Some(f) => f == Format::Html,
        None => {
            let accept = parts
                .headers
                .get(header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let html = super::observations::quality(accept, "text/html");
            let json = super::observations::quality(accept, "application/json")
                .max(super::observations::quality(accept, "application/geo+json"));
            html > 0.0 && html > json
        }
    }
}

/// One of the seven routes.
pub async fn features(
    live: &Live,
    endpoint: Endpoint,
    parts: &Parts,
    release: &Published,
) -> Response<Body> {
    let cfg = live.config();
    let o = Origins {
        api: &release.api_origin,
        site: &release.content.base_url,
    };
    let path = parts.uri.path();
    let values = endpoint.route().path_values(path);
    let collection = match values.first() {
        None => None,
        Some(id) => match Collection::find(id) {
            Some(c) => Some(c),
            None => {
                let detail = format!(
                    "There is no collection `{id}`; the collections are sites and observations."
                );
                return problem(live, parts, Problem::new(Code::NotFound, detail));
            }
        },
    };
    let known = match (endpoint, collection) {
        (Endpoint::FeaturesItems, Some(Collection::Sites)) => SITES_ITEMS_PARAMETERS,
        (Endpoint::FeaturesItems, Some(Collection::Observations)) => OBSERVATIONS_ITEMS_PARAMETERS,
        _ => OTHER_PARAMETERS,
    };
    let q = match query::parse(parts.uri.query(), known) {
        Ok(q) => q,
        Err(e) => return problem(live, parts, e.into_problem()),
    };
    let sites = match live
        .sites
        .get(
            cfg.globe_max_age,
            cfg.query_timeout,
            live.store().site_summaries(),
        )
        .await
    {
        Got::Fresh(s) | Got::Stale(s) => s,
        Got::Unavailable(why) => return live.unavailable(parts, &why),
    };
    let doc = match (endpoint, collection) {
        (Endpoint::FeaturesLanding, _) => Ok(documents::landing(cfg, &o)),
        (Endpoint::FeaturesConformance, _) => Ok(documents::conformance(&o)),
        (Endpoint::FeaturesCollections, _) => Ok(documents::collections(cfg, &o, &sites)),
        (Endpoint::FeaturesCollection, Some(c)) => Ok(documents::collection(cfg, &o, &sites, c)),
        (Endpoint::FeaturesQueryables, Some(c)) => Ok(queryables::queryables(&o, c)),
        (Endpoint::FeaturesItems, Some(c)) => items(live, &o, parts, &sites, c, &q).await,
        (Endpoint::FeaturesItem, Some(c)) => {
            let id = values.get(1).copied().unwrap_or("");
            item(live, &o, &sites, c, id).await
        }
        _ => Err(Problem::new(Code::NotFound, "No such resource.")),
    };
    let doc = match doc {
        Ok(doc) => doc,
        Err(p) if p.code == Code::ServiceUnavailable => {
            return live.unavailable(parts, "the database query failed");
        }
        Err(p) => return problem(live, parts, p),
    };
    let max_age = cfg.observations_max_age.as_secs();
    let cache_control = format!("public, max-age={max_age}");
    let vary = "Accept, Accept-Encoding";
    let rendered = if wants_html(q.format, parts) {
        let page = html::page(&doc.json, path);
        Rendered::new(
            contract::media::HTML_UTF8,
            Bytes::from(page),
            cache_control,
            vary,
        )
    } else {
        let media = match doc.kind {
            Kind::Json => contract::media::JSON,
            Kind::Geo => contract::media::GEO_JSON,
            Kind::Schema => contract::routes::SCHEMA_JSON,
        };
        let body = serde_json::to_vec(&doc.json).expect("a document serialises");
        Rendered::new(media, Bytes::from(body), cache_control, vary)
    };
    Arc::new(rendered).respond(parts)
}

fn problem(live: &Live, parts: &Parts, problem: Problem) -> Response<Body> {
    with_cors(problem.into_response(&live.config().problem_base, parts.uri.path()))
}

/// A page of a collection's features.
async fn items(
    live: &Live,
    o: &Origins<'_>,
    parts: &Parts,
    sites: &Sites,
    collection: Collection,
    q: &FeaturesQuery,
) -> Result<Doc, Problem> {
    let limit = q.limit.unwrap_or(query::DEFAULT_LIMIT);
    let page = match collection {
        Collection::Sites => documents::site_page(sites, q, limit)?,
        Collection::Observations => documents::observation_page(live, q, limit)
            .await
            .map_err(unavailable)??,
    };
    Ok(documents::feature_collection(
        live.config(),
        o,
        parts,
        collection,
        page,
    ))
}

/// One feature by its id.
async fn item(
    live: &Live,
    o: &Origins<'_>,
    sites: &Sites,
    collection: Collection,
    id: &str,
) -> Result<Doc, Problem> {
    let missing = || {
        Problem::new(
            Code::NotFound,
            format!("The collection {} has no feature `{id}`.", collection.id()),
        )
    };
    let feature = match collection {
        Collection::Sites => sites
            .iter()
            .find(|s| s.site.id == id)
            .map(documents::site_feature),
        Collection::Observations => {
            let number = id
                .parse::<i64>()
                .ok()
                .filter(|n| *n > 0 && id.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(missing)?;
            documents::observation(live, number)
                .await
                .map_err(unavailable)?
        }
    };
    feature
        .map(|f| documents::single(live.config(), o, collection, f))
        .ok_or_else(missing)
}

fn unavailable(e: anyhow::Error) -> Problem {
    tracing::warn!(error = %format!("{e:#}"), "features query failed");
    Problem::new(Code::ServiceUnavailable, "the database query failed")
}
