//! What a seat is told when its answer does not stand: a move the table refused is followed
//! at once by the prompt again, on the stream it came up (a bot that waits for prompts never
//! waits for the clock); a message that is no move, or a refused `Act`, is not (no prompt to
//! flood with); an answer to a call window that has closed is refused as
//! `call_window_closed`, however far the game has moved since.

use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_proto::v1::play_update::Update as Up;
use dudo_tests::bearer;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

/// A person's seat at a fibbing table of `seats` with no clock (only its answers move the
/// game), the server's odds bots in the other seats, answering at once; its stream open
/// and the game started.
struct Seat {
    table: String,
    token: String,
    play: PlayClient<Channel>,
    up: mpsc::Sender<pb::PlayRequest>,
    updates: tonic::Streaming<pb::PlayUpdate>,
}

impl Seat {
    async fn at_a_table_of(seats: u32, call_window_millis: u32) -> Seat {
        let addr = crate::serve().await;
        let channel = Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
        let mut lobby = LobbyClient::new(channel.clone());
        let request = pb::CreateTableRequest {
            preset: "fibbing".into(),
            name: "Ann".into(),
            seats,
            move_millis: Some(0),
            call_window_millis: Some(call_window_millis),
            ..Default::default()
        };
        let host = lobby.create_table(request).await.unwrap().into_inner();
        let (table, token) = (host.table.unwrap().id, host.token);
        for _ in 1..seats {
            let bot = pb::AddBotRequest { table: table.clone(), bot: "odds".into() };
            lobby.add_bot(bearer(bot, &token)).await.unwrap();
        }
        let mut play = PlayClient::new(channel);
        let (up, rx) = mpsc::channel(8);
        let hello = pb::Hello { table: table.clone(), since: None };
        up.send(pb::PlayRequest { request: Some(pb::play_request::Request::Hello(hello)), answers: None })
            .await
            .unwrap();
        let mut updates = play.play(bearer(ReceiverStream::new(rx), &token)).await.unwrap().into_inner();
        // The snapshot first, then the start: the stream sees the game from its beginning.
        assert!(matches!(next(&mut updates).await, Up::Snapshot(_)));
        lobby.start_game(bearer(pb::TableRef { table: table.clone() }, &token)).await.unwrap();
        Seat { table, token, play, up, updates }
    }

    async fn send(&self, request: pb::play_request::Request, answers: Option<u64>) {
        self.up.send(pb::PlayRequest { request: Some(request), answers }).await.unwrap();
    }

    /// Reads on to the next prompt that `wanted` picks, playing its own turns meanwhile with
    /// the least raise it may make (or a challenge) when `wanted` passes them by.
    async fn prompt_where(&mut self, wanted: impl Fn(&pb::Prompt) -> bool) -> pb::Prompt {
        loop {
            if let Up::Prompt(p) = next(&mut self.updates).await {
                if wanted(&p) {
                    return *p;
                }
                if p.call_window_unix_millis.is_none() {
                    self.send(least_move(&p), p.last_seq).await;
                }
            }
        }
    }
}

/// The next update on `updates`, within 10 s.
async fn next(updates: &mut tonic::Streaming<pb::PlayUpdate>) -> Up {
    let update = tokio::time::timeout(Duration::from_secs(10), updates.next()).await;
    update.expect("nothing came for 10 s").expect("the stream ended").unwrap().update.unwrap()
}

/// The least raise the prompt allows, or a challenge.
fn least_move(p: &pb::Prompt) -> pb::play_request::Request {
    use pb::action::Action as A;
    let legal = p.legal.as_ref().unwrap();
    let action = match legal.bids.first() {
        Some(r) => A::Bid(pb::Bid { quantity: r.min_quantity, face: r.face }),
        None => A::Dudo(pb::Dudo { target: None }),
    };
    pb::play_request::Request::Action(pb::Action { action: Some(action) })
}

fn ours(p: &pb::Prompt) -> bool {
    p.call_window_unix_millis.is_none() && p.view.as_ref().and_then(|v| v.turn) == Some(0)
}

#[tokio::test]
async fn a_refused_move_is_followed_at_once_by_the_prompt_again() {
    let mut seat = Seat::at_a_table_of(2, 100).await;
    let prompt = seat.prompt_where(ours).await;
    // A bid on a face the dice do not have, sent up the stream: refused, then asked again.
    let seven = pb::Action { action: Some(pb::action::Action::Bid(pb::Bid { quantity: 1, face: 7 })) };
    seat.send(pb::play_request::Request::Action(seven.clone()), prompt.last_seq).await;
    match next(&mut seat.updates).await {
        Up::Rejected(r) => assert_eq!(r.code, "face_out_of_range", "{r:?}"),
        other => panic!("the refusal first, not {other:?}"),
    }
    match next(&mut seat.updates).await {
        Up::Prompt(p) => assert_eq!(p.last_seq, prompt.last_seq, "the same decision, asked again"),
        other => panic!("the prompt again, not {other:?}"),
    }
    // Through Act, the reply is the refusal, and the prompt the seat holds stands: nothing
    // comes down its stream. Nor after an action that is no move at all.
    let act = pb::ActRequest {
        table: seat.table.clone(),
        action: Some(seven),
        pass_call: false,
        answers: prompt.last_seq,
        next_round: false,
    };
    let refused = seat.play.act(bearer(act, &seat.token)).await.unwrap_err();
    assert_eq!(refused.metadata().get("dudo-code").unwrap(), "face_out_of_range");
    seat.send(pb::play_request::Request::Action(pb::Action { action: None }), prompt.last_seq).await;
    match next(&mut seat.updates).await {
        Up::Rejected(r) => assert_eq!(r.code, "bad_action", "{r:?}"),
        other => panic!("the refusal, not {other:?}"),
    }
    let quiet = tokio::time::timeout(Duration::from_millis(300), seat.updates.next()).await;
    assert!(quiet.is_err(), "nothing more after a refused Act or a message that is no move: {quiet:?}");
    // Answered rightly, the game goes on.
    seat.send(least_move(&prompt), prompt.last_seq).await;
    loop {
        match next(&mut seat.updates).await {
            Up::Rejected(r) => panic!("{r:?}"),
            Up::Event(e) if e.seq > prompt.last_seq.unwrap_or(0) => break,
            _ => {}
        }
    }
}

#[tokio::test]
async fn an_answer_to_a_call_window_that_closed_is_call_window_closed_after_the_game_moved_on() {
    // Three seats: after each claim the seat two after the bidder may call calza.
    let mut seat = Seat::at_a_table_of(3, 1_000).await;
    let window = seat.prompt_where(|p| p.call_window_unix_millis.is_some()).await;
    let asked = window.last_seq.unwrap();
    // Not answered: the window closes after its second, and the game moves on. The seat
    // answers as soon as it sees that, well before any later window of its own could close.
    loop {
        match next(&mut seat.updates).await {
            Up::Event(e) if e.seq > asked => break,
            _ => {}
        }
    }
    seat.send(pb::play_request::Request::PassCall(pb::PassCall {}), Some(asked)).await;
    loop {
        match next(&mut seat.updates).await {
            Up::Rejected(r) => {
                assert_eq!(r.code, "call_window_closed", "{r:?}");
                break;
            }
            Up::Prompt(p) if ours(&p) => seat.send(least_move(&p), p.last_seq).await,
            _ => {}
        }
    }
}

/// A hostile client's flood of talk up its own stream (found by a hostile try: 3,500 lines a
/// second, each refused line bringing the prompt again, 35 times the bytes sent): a refused
/// line brings no prompt, and past a second's allowance the stream is read at the call rate.
#[tokio::test]
async fn a_flood_of_talk_up_a_seats_stream_brings_no_prompts_and_waits_its_turn() {
    let mut seat = Seat::at_a_table_of(2, 100).await;
    seat.prompt_where(ours).await;
    let flood = 1000;
    let up = seat.up.clone();
    let table = seat.table.clone();
    let sender = tokio::spawn(async move {
        for n in 0..flood {
            let said =
                pb::SayRequest { table: table.clone(), text: format!("spam {n}"), ..Default::default() };
            if up
                .send(pb::PlayRequest { request: Some(pb::play_request::Request::Say(said)), answers: None })
                .await
                .is_err()
            {
                break;
            }
        }
    });
    let (mut refused, mut prompts) = (0, 0);
    let until = tokio::time::Instant::now() + Duration::from_secs(2);
    while let Ok(Some(update)) = tokio::time::timeout_at(until, seat.updates.next()).await {
        match update.unwrap().update.unwrap() {
            Up::Rejected(r) => {
                assert!(matches!(r.code.as_str(), "chat_rate_limited" | "bad_chat"), "{r:?}");
                refused += 1;
            }
            Up::Prompt(_) => prompts += 1,
            _ => {}
        }
    }
    sender.abort();
    assert_eq!(prompts, 0, "a refused line of talk brings no prompt again");
    assert!(refused > 0, "the flood is refused");
    // The default call rate is 50 a second: in 2 s, the allowance and two seconds of reading
    // (about 200), not the whole flood.
    assert!(refused <= 250, "{refused} refusals in 2 s: the flood was read faster than the call rate");
}
