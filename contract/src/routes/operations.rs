//! The operations routes: liveness and readiness, for orchestrators and
//! load balancers.

use super::{Cache, Endpoint, Route, get};
use crate::media;

pub static HEALTHZ: Route = get(
    Endpoint::Healthz,
    "/healthz",
    "getHealth",
    "operations",
    "Liveness",
    &[media::JSON],
    Cache::NoStore,
);
pub static READYZ: Route = get(
    Endpoint::Readyz,
    "/readyz",
    "getReadiness",
    "operations",
    "Readiness",
    &[media::JSON],
    Cache::NoStore,
);
