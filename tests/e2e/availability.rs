//! What no client may take from the others: the CPU (tables of bots), connections (silent
//! ones, the descriptor limit), the memory budget (calls that free it always get in), and the
//! table limit under concurrent creation. Each attack is made on a real `dudo-server`
//! process, with its default settings unless the test says otherwise.

use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_tests::{bearer, binary, cpu_time, start_server};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

async fn connect(addr: &str) -> Channel {
    Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap()
}

/// The p-th fraction of `times` (sorted here).
fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort_unstable();
    times
        .get(((times.len() as f64 * p) as usize).min(times.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

/// A person's game while two host-only tables of 64 reader bots with 20 dice each play: the
/// person creates a table, adds a bot, starts and plays until two rounds are settled, and no
/// call of theirs waits behind the bots. (Before the bots were held to a share of the CPU,
/// such tables made every other call wait for tens of seconds.) The bound here is loose for a
/// debug build beside other tests; BENCHMARKS.md has the release figure.
#[tokio::test]
async fn tables_of_bots_do_not_slow_a_persons_game() {
    let server = start_server(&binary("dudo-server"), &[]).unwrap();
    let pid = server.child.id();
    let attacker = connect(&server.addr).await;
    let mut bot_tables = Vec::new();
    for _ in 0..2 {
        bot_tables.push(dudo_tests::start_bot_table(attacker.clone(), 64, 20).await.unwrap());
    }
    // The bot tables are well into their games, past the burst a share allows at first.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // Two tables at 5% of a core each. Held to slices alone, with no share, their bots would
    // take both cores.
    let (cpu_before, wall) = (cpu_time(pid), Instant::now());
    tokio::time::sleep(Duration::from_secs(2)).await;
    let cpu = cpu_time(pid).saturating_sub(cpu_before).as_secs_f64() / wall.elapsed().as_secs_f64();
    eprintln!("two tables of 64 reader bots: the server used {:.0}% of a core", cpu * 100.0);
    assert!(cpu < 0.3, "the server used {:.0}% of a core: the bots are not held to their share", cpu * 100.0);

    let ch = connect(&server.addr).await;
    let (mut lobby, mut play) = (LobbyClient::new(ch.clone()), PlayClient::new(ch.clone()));
    let mut calls = Vec::new();
    let request = pb::CreateTableRequest {
        preset: "fibbing".into(),
        name: "Ana".into(),
        seats: 2,
        ..Default::default()
    };
    let at = Instant::now();
    let joined = lobby.create_table(request).await.unwrap().into_inner();
    calls.push(at.elapsed());
    let (table, token) = (joined.table.unwrap().id, joined.token);
    let at = Instant::now();
    lobby
        .add_bot(bearer(pb::AddBotRequest { table: table.clone(), bot: "odds".into() }, &token))
        .await
        .unwrap();
    calls.push(at.elapsed());
    let mut updates = play
        .subscribe(bearer(pb::SubscribeRequest { table: table.clone(), since: None }, &token))
        .await
        .unwrap()
        .into_inner();
    let at = Instant::now();
    lobby.start_game(bearer(pb::TableRef { table: table.clone() }, &token)).await.unwrap();
    calls.push(at.elapsed());
    let mut settled = 0;
    while settled < 2 {
        let update = tokio::time::timeout(Duration::from_secs(10), updates.next())
            .await
            .expect("the person's stream went quiet")
            .unwrap()
            .unwrap();
        match update.update {
            Some(pb::play_update::Update::Prompt(p)) => {
                let window = p.call_window_unix_millis.is_some();
                let action =
                    (!window).then(|| crate::server::simple_move(&p.legal.clone().unwrap_or_default()));
                let request =
                    pb::ActRequest { table: table.clone(), action, pass_call: window, answers: p.last_seq };
                let at = Instant::now();
                play.act(bearer(request, &token)).await.unwrap();
                calls.push(at.elapsed());
            }
            Some(pb::play_update::Update::Event(pb::Event {
                kind: Some(pb::event::Kind::RoundSettled(_) | pb::event::Kind::GameOver(_)),
                ..
            })) => settled += 1,
            _ => {}
        }
        let at = Instant::now();
        lobby.list_tables(pb::ListTablesRequest::default()).await.unwrap();
        calls.push(at.elapsed());
    }
    let n = calls.len();
    let (p50, p99) = (percentile(&mut calls, 0.5), percentile(&mut calls, 0.99));
    eprintln!("a person's {n} calls beside two tables of 64 reader bots: p50 {p50:?}, p99 {p99:?}");
    assert!(p99 < Duration::from_millis(250), "p99 {p99:?} over {n} calls: bots are holding the server");

    // The bot tables were slowed, not stopped.
    let mut watch = play
        .watch(pb::WatchRequest { table: bot_tables[0].clone(), since: None })
        .await
        .unwrap()
        .into_inner();
    let mut events = 0;
    let until = Instant::now() + Duration::from_secs(10);
    while events < 3 && Instant::now() < until {
        if let Ok(Some(Ok(pb::PlayUpdate { update: Some(pb::play_update::Update::Event(_)), .. }))) =
            tokio::time::timeout_at(until.into(), watch.next()).await
        {
            events += 1;
        }
    }
    assert!(events >= 3, "a bot table stopped playing");
}
