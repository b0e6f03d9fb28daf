//! The `dudo.v1` protocol: the `.proto` files in `dudo/v1/` and the Rust types generated
//! from them. The server, the CLI and the bot SDK share this one definition, and the one
//! conversion between it and the engine's types (`convert`).
#![forbid(unsafe_code)]

pub mod codec;
pub mod convert;
pub mod link;
pub mod table_event;

pub use table_event::{LeaveWhy, StopWhy, TableEvent};

/// The generated types of package `dudo.v1`: compiled from `dudo/v1/*.proto` by the test
/// `tests/generated.rs`, which fails when they are not what the `.proto` files say.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    include!("../generated/dudo.v1.rs");
}

/// The protobuf package every dudo message lives in.
pub const PACKAGE: &str = "dudo.v1";

/// The compiled descriptor set, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!("../generated/dudo_descriptor.bin");
