//! `GET /api/observation-trend`: one parameter's observations summarised
//! per day, week, month or year, with a trend (decision 0220).

use super::{Cache, Endpoint, Route, get};
use crate::media;

pub static OBSERVATION_TREND: Route = get(
    Endpoint::ObservationTrend,
    "/api/observation-trend",
    "getObservationTrend",
    "live-data",
    "One parameter's observations per interval, with a trend",
    &[media::JSON],
    Cache::Live,
);
