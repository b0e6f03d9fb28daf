//! Seats remembered between commands, so `dudo join` after a crash (or `dudo host start`
//! from another terminal) finds the seat's token again.
//!
//! One JSON file, `seats.json`, in `$DUDO_HOME`, or `$XDG_DATA_HOME/dudo`, or
//! `~/.local/share/dudo`. A token is a secret: the file is the user's own, like a browser's
//! cookies, and a seat is forgotten when the player leaves.
//!
//! One account may hold several seats at one table (the host, and a friend playing from the
//! same machine under another name): a seat is known by its server, table and name.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Saved {
    pub server: String,
    pub table: String,
    pub code: String,
    pub seat: u32,
    pub token: String,
    pub name: String,
    /// The seat that created the table (its host's commands are sent with this token).
    #[serde(default)]
    pub host: bool,
    /// A host that holds no seat (`dudo create --host-only`): the token is for the host's
    /// commands only, never a seat to return to.
    #[serde(default)]
    pub host_only: bool,
    /// The table's link as the server gave it when the seat was taken: its address is the
    /// server's public one (`--public-url`, a cluster's balancer), the one other address the
    /// seat's token is sent to.
    #[serde(default)]
    pub link: String,
}

impl Saved {
    fn same_seat(&self, other: &Saved) -> bool {
        self.server == other.server
            && self.table == other.table
            && self.name.eq_ignore_ascii_case(&other.name)
    }
}

fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("DUDO_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("dudo"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share/dudo"))
}

/// A file of secrets in dudo's directory, if it is there.
pub fn read_private(file: &str) -> Option<String> {
    dir().and_then(|d| std::fs::read_to_string(d.join(file)).ok())
}

/// Writes a file of secrets (tokens) in dudo's directory: the user's alone (0600) from the
/// moment it exists.
pub fn write_private(file: &str, text: &str) -> std::io::Result<()> {
    let Some(dir) = dir() else { return Ok(()) };
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(file);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    std::io::Write::write_all(&mut options.open(&path)?, text.as_bytes())
}

fn load() -> Vec<Saved> {
    read_private("seats.json").and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
}

fn store(seats: &[Saved]) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(seats).map_err(std::io::Error::other)?;
    write_private("seats.json", &text)
}

/// The seats held at `table` (an id, a join code or a link) on `server`, oldest first; if
/// none, those taken through one node of a cluster whose public address (the address in the
/// table's link, as the server gave it then) is `server`. A token is never sent to any other
/// address: a join code is public, and a link someone sends could name their own server.
pub fn held(server: &str, table: &str) -> Vec<Saved> {
    let code = table.rsplit('/').next().unwrap_or(table);
    let at_table = |s: &Saved| s.table == table || s.code.eq_ignore_ascii_case(code);
    let all = load();
    let here: Vec<Saved> = all.iter().filter(|s| s.server == server && at_table(s)).cloned().collect();
    if !here.is_empty() {
        return here;
    }
    let public =
        |s: &Saved| dudo_client::dudo_proto::link::parse(&s.link).is_some_and(|l| l.server == server);
    // One seat remembered through two addresses is one seat.
    let mut elsewhere: Vec<Saved> = Vec::new();
    for s in all.into_iter().filter(|s| at_table(s) && public(s)) {
        if !elsewhere.iter().any(|e| e.table == s.table && e.name.eq_ignore_ascii_case(&s.name)) {
            elsewhere.push(s);
        }
    }
    elsewhere
}

/// Seats held at `table` through addresses other than `server` (none of which is sent a
/// token), for a message saying where they are.
pub fn held_elsewhere(server: &str, table: &str) -> Vec<Saved> {
    let code = table.rsplit('/').next().unwrap_or(table);
    load()
        .into_iter()
        .filter(|s| s.server != server && (s.table == table || s.code.eq_ignore_ascii_case(code)))
        .collect()
}

/// The server a seat at `table` (an id, a join code or a link) was taken on, if this
/// account holds seats there on one server only.
pub fn server_of(table: &str) -> Option<String> {
    let code = table.rsplit('/').next().unwrap_or(table);
    let mut servers: Vec<String> = load()
        .into_iter()
        .filter(|s| s.table == table || s.code.eq_ignore_ascii_case(code))
        .map(|s| s.server)
        .collect();
    servers.dedup();
    (servers.len() == 1).then(|| servers.remove(0))
}

/// Remembers a seat (one per server, table and name).
pub fn remember(seat: Saved) {
    let mut seats = load();
    seats.retain(|s| !s.same_seat(&seat));
    seats.push(seat);
    // Old seats are of no use: keep the last fifty.
    let excess = seats.len().saturating_sub(50);
    seats.drain(..excess);
    if let Err(e) = store(&seats) {
        eprintln!("dudo: could not save the seat for later ({e}); carrying on");
    }
}

/// Forgets the seat whose token is `token` at `table` (an id) on `server`, or every seat held
/// there when `token` is `None` (the table is gone).
pub fn forget(server: &str, table: &str, token: Option<&str>) {
    let mut seats = load();
    let before = seats.len();
    seats.retain(|s| !(s.server == server && s.table == table && token.is_none_or(|t| t == s.token)));
    if seats.len() != before {
        let _ = store(&seats);
    }
}
