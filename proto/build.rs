//! Compiles `dudo/v1/*.proto` with protox (no protoc needed) and generates the Rust types.
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files =
        ["dudo/v1/rules.proto", "dudo/v1/game.proto", "dudo/v1/service.proto", "dudo/v1/journal.proto"];
    for f in &files {
        println!("cargo:rerun-if-changed={f}");
    }
    let fds = protox::compile(files, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    // The descriptor set is kept for gRPC server reflection.
    std::fs::write(out.join("dudo_descriptor.bin"), prost::Message::encode_to_vec(&fds))?;
    // Our codec: a message that does not decode is answered INVALID_ARGUMENT.
    // The big, rare updates are boxed: every event a table keeps is a `PlayUpdate`, which
    // would otherwise be as large as its largest variant (816 bytes, for a 20-byte bid).
    let mut builder = tonic_prost_build::configure().codec_path("crate::codec::DudoCodec");
    for variant in ["snapshot", "prompt", "table", "turn", "rejected", "reseated"] {
        builder = builder.boxed(format!(".dudo.v1.PlayUpdate.update.{variant}"));
    }
    builder.compile_fds(fds)?;
    Ok(())
}
