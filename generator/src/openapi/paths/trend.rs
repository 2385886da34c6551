//! The operation of `/api/observation-trend` (decision 0220).

use serde_json::json;

use super::{Errors, Operation, Response, live_get, query, schemas};
use contract::ProblemCode;
use contract::observations::{
    COUNTRY_PATTERN, INTERVALS, TREND_MAX_BUCKETS, TREND_MAX_OBSERVATIONS,
};
use schemas::OBSERVATION_PARAMETERS;

pub(super) fn operation(op: Operation) -> Operation {
    let mut op = live_get(
        op,
        Response::new("The parameter's figures per interval, with its trend.")
            .body("application/json", schemas::schema_ref("ObservationTrend")),
    )
    .describe(format!(
        "One parameter's public observations, selected like `/api/observations-data.php`, \
        summarised per UTC day, ISO week, month or year: count, minimum, mean and maximum per \
        bucket (empty buckets are left out), the least-squares slope per year and the change \
        of the mean from the first bucket to the last. A selection of more than \
        {TREND_MAX_OBSERVATIONS} observations or of more than {TREND_MAX_BUCKETS} buckets is \
        a 400 with code `{}` asking for a narrower one; an unknown query parameter is a 400 \
        with code `{}`. Both name the parameter in `detail` and `errors`.",
        ProblemCode::InvalidParameter,
        ProblemCode::UnknownParameter,
    ))
    .errors(Errors::Query);
    let mut parameter = query(
        "parameter",
        "The measured parameter.",
        json!({ "type": "string", "enum": OBSERVATION_PARAMETERS, "examples": ["nitrate"] }),
    );
    if let super::RefOr::Item(p) = &mut parameter {
        p.required = true;
    }
    let [site, from, to, bbox] = super::selection();
    op.parameters.extend([
        parameter,
        site,
        bbox,
        query(
            "country",
            "Only sites in this country (ISO 3166-1 alpha-2).",
            json!({ "type": "string", "minLength": 2, "maxLength": 2, "pattern": COUNTRY_PATTERN, "examples": ["NL"] }),
        ),
        from,
        to,
        query(
            "interval",
            "The width of a bucket: UTC day, ISO week (from Monday), month or year.",
            json!({ "type": "string", "enum": INTERVALS, "default": INTERVALS[0] }),
        ),
    ]);
    op
}
