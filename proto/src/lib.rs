//! The `dudo.v1` protocol: the `.proto` files in `dudo/v1/` and the Rust types generated
//! from them. The server, the CLI and the bot SDK share this one definition, and the one
//! conversion between it and the engine's types (`convert`).
#![forbid(unsafe_code)]

pub mod codec;
pub mod convert;
pub mod link;
pub mod table_event;

pub use table_event::{LeaveWhy, StopWhy, TableEvent};

/// The generated types of package `dudo.v1`.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    tonic::include_proto!("dudo.v1");
}

/// The protobuf package every dudo message lives in.
pub const PACKAGE: &str = "dudo.v1";

/// The compiled descriptor set, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("dudo_descriptor");
