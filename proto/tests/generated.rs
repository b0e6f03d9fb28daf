//! The Rust types and the descriptor set in `proto/generated/` are what the `.proto` files
//! compile to. They are kept in the repository, not made by a build script, so that building
//! dudo does not first build a protobuf compiler and a code generator (protox, prost-build and
//! their parsers: a fifth of a first build's CPU). This test compiles the `.proto` files again,
//! with protox (no protoc to install), and fails when the kept files differ;
//! `DUDO_BLESS=1 scripts/test.sh -p dudo-proto --test generated` writes them anew (then
//! `scripts/web-build.sh` makes the page's code from the same files).
use std::path::{Path, PathBuf};

/// The protocol's files, in the order they are compiled.
const PROTOS: [&str; 4] =
    ["dudo/v1/rules.proto", "dudo/v1/game.proto", "dudo/v1/service.proto", "dudo/v1/journal.proto"];

/// Compiles the `.proto` files into `out`: the descriptor set and the generated Rust types.
fn generate(out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fds = protox::compile(PROTOS.map(|p| root.join(p)), [root])?;
    // The descriptor set is kept for gRPC server reflection and for the rule set's fields
    // (convert/rules.rs).
    std::fs::write(out.join("dudo_descriptor.bin"), prost::Message::encode_to_vec(&fds))?;
    // Our codec: a message that does not decode is answered INVALID_ARGUMENT.
    // The big, rare updates are boxed: every event a table keeps is a `PlayUpdate`, which
    // would otherwise be as large as its largest variant (816 bytes, for a 20-byte bid).
    let mut builder = tonic_prost_build::configure().codec_path("crate::codec::DudoCodec").out_dir(out);
    for variant in ["snapshot", "prompt", "table", "turn", "rejected", "reseated"] {
        builder = builder.boxed(format!(".dudo.v1.PlayUpdate.update.{variant}"));
    }
    builder.compile_fds(fds)?;
    Ok(())
}

#[test]
fn the_generated_code_is_what_the_proto_files_compile_to() {
    let kept = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("generated");
    let fresh = std::env::temp_dir().join(format!("dudo-proto-generated-{}", std::process::id()));
    std::fs::create_dir_all(&fresh).unwrap();
    generate(&fresh).unwrap();
    let bless = std::env::var_os("DUDO_BLESS").is_some();
    let mut stale = Vec::new();
    for name in ["dudo.v1.rs", "dudo_descriptor.bin"] {
        let new = std::fs::read(fresh.join(name)).unwrap();
        if std::fs::read(kept.join(name)).ok().as_deref() != Some(&new[..]) {
            if bless {
                std::fs::write(kept.join(name), &new).unwrap();
            } else {
                stale.push(name);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&fresh);
    assert!(
        stale.is_empty(),
        "proto/generated/ ({}) is not what dudo/v1/*.proto compiles to: run \
         `DUDO_BLESS=1 scripts/test.sh -p dudo-proto --test generated` and commit the result \
         (and `scripts/web-build.sh`, for the page's code)",
        stale.join(", ")
    );
}
