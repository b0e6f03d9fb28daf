//! A game at a shared address, as the tests of its defences play it (availability.rs, one
//! server; cluster.rs, two nodes): Ana's table of three (Ana, Ben and a bot, quick clocks),
//! Ben seated from the shared address and then gone; others there holding its connections;
//! Ben trying to come back while his clock runs out.

use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_tests::bearer;
use tonic::transport::Channel;

/// A connection to `url` (`http://HOST:PORT`) from the local address `ip`.
pub(crate) async fn from(url: &str, ip: &str) -> Result<Channel, tonic::transport::Error> {
    Channel::from_shared(url.to_string())
        .unwrap()
        .local_address(Some(ip.parse().unwrap()))
        .connect_timeout(Duration::from_millis(500))
        .connect()
        .await
}

/// Ana's table and Ben's seat token at it.
pub(crate) struct BensGame {
    pub(crate) table: String,
    pub(crate) ben: String,
}

/// Ana makes a table on `ana`'s connection (clocks of `move_millis`, no bank, no pause after
/// a reveal), Ben joins and subscribes on `ben`'s, a bot fills the third seat, the game
/// starts, and Ben's stream and connection drop.
pub(crate) async fn bens_game(ana: Channel, ben: Channel, move_millis: u32) -> BensGame {
    let mut lobby = LobbyClient::new(ana);
    let made = lobby
        .create_table(pb::CreateTableRequest {
            name: "Ana".into(),
            seats: 3,
            move_millis: Some(move_millis),
            time_bank_millis: 0,
            reveal_pause_millis: Some(0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let table = made.table.unwrap().id;
    let join = pb::JoinTableRequest { table: table.clone(), name: "Ben".into(), ..Default::default() };
    let token = LobbyClient::new(ben.clone()).join_table(join).await.unwrap().into_inner().token;
    let add = pb::AddBotRequest { table: table.clone(), bot: "odds".into() };
    lobby.add_bot(bearer(add, &made.token)).await.unwrap();
    let subscribe = pb::SubscribeRequest { table: table.clone(), since: None };
    let mut stream = PlayClient::new(ben).subscribe(bearer(subscribe, &token)).await.unwrap().into_inner();
    assert!(stream.message().await.unwrap().is_some());
    lobby.start_game(bearer(pb::TableRef { table: table.clone() }, &made.token)).await.unwrap();
    BensGame { table, ben: token }
}

/// `n` connections to `url` from `ip`, each carrying the stream of a seat of its own (at a
/// table it makes).
pub(crate) async fn holding_seats(
    url: &str,
    ip: &str,
    n: usize,
) -> Vec<(Channel, tonic::Streaming<pb::PlayUpdate>)> {
    let mut held = Vec::new();
    for i in 0..n {
        let channel = from(url, ip).await.unwrap();
        let own = LobbyClient::new(channel.clone())
            .create_table(pb::CreateTableRequest { name: format!("Held{i}"), seats: 2, ..Default::default() })
            .await
            .unwrap()
            .into_inner();
        let subscribe = pb::SubscribeRequest { table: own.table.unwrap().id, since: None };
        let stream = PlayClient::new(channel.clone()).subscribe(bearer(subscribe, &own.token)).await;
        held.push((channel, stream.unwrap().into_inner()));
    }
    held
}

/// Ben (seat 1) tries to come back to `url` from `ip` every 200 ms, each try refused, while
/// `spectator` (a watch of his table) hears his clock run out three times: how many tries
/// were made.
pub(crate) async fn refused_while_his_clock_runs_out(
    url: &str,
    ip: &str,
    spectator: &mut tonic::Streaming<pb::PlayUpdate>,
) -> u32 {
    let (mut refused, mut ben_timed_out) = (0, 0);
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while ben_timed_out < 3 && std::time::Instant::now() < until {
        let back = match from(url, ip).await {
            Ok(ch) => {
                let check = tonic_health::pb::HealthCheckRequest { service: String::new() };
                tonic_health::pb::health_client::HealthClient::new(ch).check(check).await.is_ok()
            }
            Err(_) => false,
        };
        assert!(!back, "the address has no connection left for Ben");
        refused += 1;
        let quiet = tokio::time::sleep(Duration::from_millis(200));
        tokio::pin!(quiet);
        loop {
            tokio::select! {
                () = &mut quiet => break,
                update = spectator.message() => match update.unwrap().and_then(|u| u.update) {
                    Some(pb::play_update::Update::Event(pb::Event {
                        kind: Some(pb::event::Kind::TurnTimedOut(t)), ..
                    })) if t.seat == 1 => ben_timed_out += 1,
                    Some(_) => {}
                    None => panic!("the spectator's stream ended"),
                },
            }
        }
    }
    assert!(ben_timed_out >= 2, "Ben's clock ran out turn after turn ({ben_timed_out} times)");
    refused
}

/// Ben subscribes again on `channel`: he still holds his seat, and nobody took him out.
pub(crate) async fn ben_is_back(
    channel: Channel,
    game: &BensGame,
    refused: u32,
) -> tonic::Streaming<pb::PlayUpdate> {
    let subscribe = pb::SubscribeRequest { table: game.table.clone(), since: None };
    let mut back = PlayClient::new(channel)
        .subscribe(bearer(subscribe, &game.ben))
        .await
        .expect("Ben's token still holds a seat")
        .into_inner();
    let info = match back.message().await.unwrap().and_then(|u| u.update) {
        Some(pb::play_update::Update::Snapshot(s)) => s.table.unwrap(),
        other => panic!("a snapshot first: {other:?}"),
    };
    let seat = &info.players[1];
    assert!(
        !seat.left && !seat.leaving,
        "Ben was taken out while {refused} reconnects were refused: {seat:?}"
    );
    back
}
