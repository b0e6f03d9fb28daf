//! What one node allows: every limit a client can run into, with its default, in one
//! struct the command line fills (`dudo-server --help` names each).

/// What one server allows, each with a clear error when hit.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Tables the server holds at once.
    pub max_tables: usize,
    /// Tables one IP address may create.
    pub max_tables_per_ip: usize,
    /// Open streams (play, subscribe, watch) per IP address.
    pub max_streams_per_ip: usize,
    /// Open streams per connection (one client's TCP connection, known by its peer address).
    pub max_streams_per_connection: usize,
    /// Connections open at once from one address (past it, see connections/slots.rs).
    pub max_connections_per_ip: usize,
    /// New connections a second from one address, and from all together (0: no limit),
    /// each with a burst of two seconds' worth: past them a connection is closed before its
    /// TLS handshake (see `opening_rate`).
    pub connections_per_second_per_ip: u32,
    pub connections_per_second: u32,
    /// Calls a second from one address, and streams opened a second (Play, Subscribe,
    /// Watch, WatchReplay, the ladder's and tournaments' Enter and Check, reflection), each
    /// with a burst of two seconds' worth (0: no limit): past them a call is answered
    /// `rate_limited` before any service reads it (see `call_gate`). Health checks are not
    /// counted. The page's files have a rate of their own (`web_page`).
    pub calls_per_second_per_ip: u32,
    pub stream_opens_per_second_per_ip: u32,
    /// Seats a table may have.
    pub max_seats: usize,
    /// Calls a seat may make each second that the table was not waiting for (a burst of
    /// twice that is allowed); moves answering a prompt do not count.
    pub actions_per_second: u32,
    /// Seats one address may leave a minute (Leave; as many at once), in
    /// all the node's tables (0: no limit): each leave before the start renumbers the seats
    /// after it and ends their streams.
    pub leaves_per_minute: u32,
    /// Moves a whole table may make each second in answer to prompts: a bound that protects
    /// the server from tables of programs playing flat out (people never come near it).
    pub table_moves_per_second: u32,
    /// The largest message a client may send, in bytes.
    pub max_message_bytes: usize,
    /// The most moves a game may have; a game that reaches it is stopped (0: no limit).
    pub max_game_moves: u64,
    /// The longest a game may last; one that outlasts it is stopped at its next move.
    pub max_game_time: Option<std::time::Duration>,
    /// The most memory a game's events may take (estimated, as the budget counts it); a game
    /// that reaches it is stopped (0: no limit). Bounds what one game's streams, resumes and
    /// record hold.
    pub max_game_bytes: u64,
    /// The memory clients may make the server hold in all (events of games in play, updates
    /// waiting for readers, replays being read), estimated from the messages' sizes: past
    /// it, new streams, games and replays are refused and games still growing are stopped.
    pub memory_budget: usize,
    /// Each address's share of the memory budget (0: no share of its own), so one address
    /// that fills it is refused while everyone else plays on.
    pub memory_per_address: usize,
    /// How long a table lives with no call reaching it and no stream open on it.
    pub idle_table: std::time::Duration,
    /// The clock of a table made without one asked for.
    pub default_clock: DefaultClock,
    /// How long a closed table's journal is kept before it is forgotten (zero: for ever).
    /// Its finished games keep records of their own; only the table's inputs go.
    pub keep_closed_tables: std::time::Duration,
    /// How often to ping a quiet connection to learn whether it is still there (none: never).
    pub keepalive: Option<std::time::Duration>,
    /// The CPU built-in bots may take, per table and in all (see `bot_cpu`).
    pub bot_cpu: crate::bot_cpu::BotCpuLimits,
    /// A call's request must be whole within this (a handler answers at once, or opens its
    /// stream at once): a half-sent request is dropped, and what it held given back.
    pub request_time: std::time::Duration,
    /// A connection with no call in flight for this long is closed (zero: never).
    pub idle_connection: std::time::Duration,
    /// The most entries a table's journal takes before the table refuses another game (a
    /// reset, `table_spent`): a journal is replayed whole to rebuild its table (at a restart,
    /// or when another node adopts it), and this many replay in about a second.
    pub max_journal_entries: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tables: 10_000,
            max_tables_per_ip: 100,
            max_streams_per_ip: 1_000,
            max_streams_per_connection: 200,
            max_connections_per_ip: 64,
            connections_per_second_per_ip: 100,
            connections_per_second: 2_000,
            calls_per_second_per_ip: 1_000,
            stream_opens_per_second_per_ip: 200,
            max_seats: 64,
            actions_per_second: 50,
            leaves_per_minute: 20,
            table_moves_per_second: 2_000,
            max_game_moves: 10_000,
            max_game_time: Some(DEFAULT_GAME_TIME),
            max_game_bytes: 16 * 1024 * 1024,
            memory_budget: 512 * 1024 * 1024,
            memory_per_address: 64 * 1024 * 1024,
            max_message_bytes: 16 * 1024,
            idle_table: std::time::Duration::from_secs(30 * 60),
            default_clock: DefaultClock::default(),
            keep_closed_tables: std::time::Duration::from_secs(7 * 24 * 60 * 60),
            keepalive: Some(std::time::Duration::from_secs(30)),
            bot_cpu: crate::bot_cpu::BotCpuLimits { per_table: Some(0.05), all_tables: Some(0.25) },
            request_time: std::time::Duration::from_secs(60),
            idle_connection: std::time::Duration::from_secs(30),
            max_journal_entries: 50_000,
        }
    }
}

/// The longest a game lasts by default: a long evening; bots that play for hours only hold
/// the server.
pub const DEFAULT_GAME_TIME: std::time::Duration = std::time::Duration::from_secs(3 * 60 * 60);

/// The clock a table gets when its creator asks for none: a game night's, so that a player
/// who walks away never holds the game up for ever (0 ms a move: no clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultClock {
    pub move_millis: u32,
    pub bank_millis: u32,
    /// After a showdown, how long the next round of such a table waits for its people.
    pub reveal_pause_millis: u32,
}

impl Default for DefaultClock {
    /// A minute a move, and a minute of bank for the moves that need longer.
    fn default() -> Self {
        DefaultClock {
            move_millis: 60_000,
            bank_millis: 60_000,
            // People need a moment to see who lost before the next round is dealt to them.
            reveal_pause_millis: 5_000,
        }
    }
}
