//! The OpenAPI 3.1 contract (being written).
