//! Helpers shared by the end-to-end tests in `tests/e2e/`.
#![forbid(unsafe_code)]
