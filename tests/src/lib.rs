//! Helpers shared by the end-to-end tests in `tests/e2e/`.
#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

/// The path of a workspace binary (`dudo`, `dudo-server`) built next to this test.
///
/// `cargo test --workspace` builds them because their packages have integration tests;
/// this finds them in the same target directory as the running test executable.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/debug/deps/e2e-HASH -> target/debug/NAME
    let dir = exe.parent().and_then(|deps| deps.parent()).map(PathBuf::from).unwrap_or_default();
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is not built; run the tests with `cargo test --workspace`", path.display());
    path
}

/// A ladder pools file in `dir` with one pool, `duel`: two seats of fibbing, a 5 s move clock,
/// the server's odds bot filling a seat at once. Its path, for `--ladder`.
pub fn duel_pool(dir: &Path) -> std::io::Result<PathBuf> {
    let pools = dir.join("pools.toml");
    let text = "[[pool]]\nname = \"duel\"\npreset = \"fibbing\"\nseats = 2\nmove_millis = 5000\nbots = [\"odds\"]\nfill_after_seconds = 0\n";
    std::fs::write(&pools, text)?;
    Ok(pools)
}

/// The path of a workspace example (`minimal` of the bot SDK), built by `cargo test --workspace`.
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe.parent().and_then(|deps| deps.parent()).map(PathBuf::from).unwrap_or_default();
    let path = dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is not built; run the tests with `cargo test --workspace`", path.display());
    path
}

/// The Python with grpcio that `scripts/python-env.sh` makes, or why there is none.
pub fn python() -> Result<String, String> {
    from_script("python-env.sh", "no Python environment")
}

/// The node that runs the Node.js example bot, its packages installed by
/// `scripts/node-env.sh`, or why there is none.
pub fn node() -> Result<String, String> {
    from_script("node-env.sh", "no Node.js environment")
}

/// The Go example bot (`dudobot`), built by `scripts/go-env.sh` with Debian's Go packages,
/// or why there is none.
pub fn go_bot() -> Result<String, String> {
    from_script("go-env.sh", "no Go")
}

/// The C++ example bot, built by `scripts/cpp-env.sh` (Debian's gRPC C++ packages), or why
/// there is none.
pub fn cpp_bot() -> Result<String, String> {
    from_script("cpp-env.sh", "no C++ gRPC")
}

/// The node that runs the browser tests (`tests/browser`), with Debian's chromium and
/// playwright-core made ready by `scripts/browser-env.sh`, or why there is none.
pub fn browser() -> Result<String, String> {
    from_script("browser-env.sh", "no browser")
}

/// `buf`, installed by `scripts/buf-env.sh` (from npm), or why there is none.
pub fn buf() -> Result<String, String> {
    from_script("buf-env.sh", "no buf")
}

/// What a set-up script in `scripts/` prints (the program it made ready), or why not.
fn from_script(script: &str, missing: &str) -> Result<String, String> {
    let out = Command::new("bash")
        .arg(root().join("scripts").join(script))
        .output()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    if !out.status.success() {
        return Err(format!("{missing} ({})", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A `dudo-server` process listening on a free port.
pub struct ServerProcess {
    pub child: Child,
    /// `host:port`, from the server's first line of output.
    pub addr: String,
    /// The rest of its standard output. Read it or drop it: a full pipe would stall the server.
    pub stdout: BufReader<ChildStdout>,
}

/// Starts the `dudo-server` at `exe` on `127.0.0.1:0` with `args`, logging warnings only, and
/// reads the address it prints first.
pub fn start_server(exe: &Path, args: &[&str]) -> std::io::Result<ServerProcess> {
    // A test's server keeps nothing unless the test gives it a database: never the user's.
    let db: &[&str] = if args.contains(&"--db") { &[] } else { &["--db", "none"] };
    let listen: &[&str] = if args.contains(&"--listen") { &[] } else { &["--listen", "127.0.0.1:0"] };
    // Test clients are programs: after a showdown they go on at once, unless a test of the
    // wait asks for one (its tables say how long, or it gives the server's default itself).
    let reveal: &[&str] =
        if args.contains(&"--default-reveal-pause-ms") { &[] } else { &["--default-reveal-pause-ms", "0"] };
    // DUDO_TEST_SERVER_LOG=FILE keeps the servers' logs (info and up), appended, to debug a test.
    let (log, level) = match std::env::var_os("DUDO_TEST_SERVER_LOG") {
        Some(path) => {
            (Stdio::from(std::fs::OpenOptions::new().create(true).append(true).open(path)?), "info")
        }
        None => (Stdio::null(), "warn"),
    };
    let mut child = Command::new(exe)
        .args(listen)
        .args(db)
        .args(reveal)
        .args(args)
        .env("RUST_LOG", level)
        .env("DUDO_LOG_FORMAT", "text")
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or(std::io::ErrorKind::BrokenPipe)?);
    let mut line = String::new();
    stdout.read_line(&mut line)?;
    if line.is_empty() {
        // It stopped before listening (its address taken, say): say so here, not as a test
        // that waits for a server that never came.
        let status = child.wait()?;
        return Err(std::io::Error::other(format!(
            "dudo-server {args:?} stopped before listening: {status}"
        )));
    }
    // "dudo-server listening on ADDR"
    let addr = line.trim().rsplit(' ').next().unwrap_or_default().to_string();
    Ok(ServerProcess { child, addr, stdout })
}

/// A loopback address for a server that must keep it across restarts (a cluster's node, a
/// restarted server). Its port is outside the kernel's ephemeral range (32768 and up on
/// Linux), so no connection's local port and no `127.0.0.1:0` listener can take it between
/// this check and the server's bind: that race once kept a cluster node from starting.
pub fn fixed_address() -> String {
    use std::hash::{BuildHasher, RandomState};
    let random = RandomState::new();
    for attempt in 0u32..1000 {
        let port = 20_000 + (random.hash_one(attempt) % 12_000) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return format!("127.0.0.1:{port}");
        }
    }
    panic!("no free port in 20000..32000 on 127.0.0.1");
}

/// A failing test does not leave its server behind: the process is killed with its handle.
impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts a host-only table of `seats` reader bots with `dice` dice each on the server behind
/// `channel`, and leaves it playing: the table that would eat a server's CPU if its bots
/// were not held to their share. Returns the table's id.
pub async fn start_bot_table(
    channel: tonic::transport::Channel,
    seats: u32,
    dice: u32,
) -> Result<String, tonic::Status> {
    use dudo_proto::v1 as pb;
    let mut lobby = dudo_proto::v1::lobby_client::LobbyClient::new(channel);
    let setting = |path: &str, value: String| pb::Setting { path: path.into(), value };
    let joined = lobby
        .create_table(pb::CreateTableRequest {
            preset: "fibbing".into(),
            seats,
            host_only: true,
            settings: vec![
                setting("players.max", seats.to_string()),
                setting("dice.max", dice.to_string()),
                setting("dice.start", dice.to_string()),
            ],
            ..Default::default()
        })
        .await?
        .into_inner();
    let table = joined.table.map(|t| t.id).unwrap_or_default();
    for _ in 0..seats {
        let bot = pb::AddBotRequest { table: table.clone(), bot: "reader".into() };
        lobby.add_bot(bearer(bot, &joined.token)).await?;
    }
    lobby.start_game(bearer(pb::TableRef { table: table.clone() }, &joined.token)).await?;
    Ok(table)
}

/// The CPU time a process has used, from /proc (zero where there is none).
pub fn cpu_time(pid: u32) -> std::time::Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's closing parenthesis: utime and stime are 12th and 13th,
    // in clock ticks (100 a second on Linux).
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    std::time::Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// `message` with a seat's or host's token, as the server reads it.
pub fn bearer<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(v) = format!("Bearer {token}").parse() {
        request.metadata_mut().insert("authorization", v);
    }
    request
}

/// A `dudo-server` that can be killed and started again on the same database and address, as
/// an operator restarts one: a SQLite file in a directory of its own, and a fixed port.
pub struct Restartable {
    dir: PathBuf,
    db: String,
    listen: String,
}

impl Restartable {
    pub fn new(name: &str) -> Restartable {
        let dir = std::env::temp_dir().join(format!("dudo-{name}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let db = dir.join("dudo.db").display().to_string();
        Restartable { dir, db, listen: fixed_address() }
    }

    /// Starts (or starts again) the server on the same database and address.
    pub fn start(&self) -> std::io::Result<ServerProcess> {
        self.start_with(&[])
    }

    /// [`Restartable::start`] with more flags.
    pub fn start_with(&self, args: &[&str]) -> std::io::Result<ServerProcess> {
        let mut all = vec!["--db", &self.db, "--listen", &self.listen];
        all.extend_from_slice(args);
        start_server(&binary("dudo-server"), &all)
    }
}

impl Drop for Restartable {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Says a test skipped, where `cargo test` shows it: libtest captures a passing test's
/// `eprintln!`, but not what is written to the standard error handle itself.
pub fn skipped(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "\nnote: {test} SKIPPED: {why}");
}

/// A TCP balancer in front of several servers, as a Kubernetes Service or a load balancer
/// stands in front of a cluster's nodes: each connection goes to the next server in turn
/// that accepts it (one that is down is passed over), its bytes copied both ways until
/// either side closes. Returns the address clients use.
pub async fn balancer(servers: Vec<String>) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?.to_string();
    tokio::spawn(async move {
        let mut next = 0usize;
        while let Ok((mut client, _)) = listener.accept().await {
            let start = next;
            next = next.wrapping_add(1);
            let servers = servers.clone();
            tokio::spawn(async move {
                for i in 0..servers.len() {
                    let server = &servers[(start + i) % servers.len()];
                    let connect = tokio::net::TcpStream::connect(server);
                    if let Ok(Ok(mut upstream)) = tokio::time::timeout(Duration::from_secs(1), connect).await
                    {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                        return;
                    }
                }
            });
        }
    });
    Ok(addr)
}

/// A fresh, empty PostgreSQL schema `schema` on the database at `base` (dropped first if an
/// earlier run left it), whose URL a server takes: what the cluster tests and `dudo-load
/// cluster` run on. It is dropped with the value.
pub async fn fresh_schema(base: &str, schema: &str) -> Result<dudo_store::scratch::Scratch, sqlx::Error> {
    dudo_store::scratch::Scratch::make(base, schema, None).await
}
