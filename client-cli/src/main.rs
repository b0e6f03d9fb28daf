//! The `dudo` binary: all of it is the library's (`lib.rs` says why).
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    dudo_cli::main()
}
