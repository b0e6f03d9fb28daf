//! Why an action was refused.
//!
//! Every refusal names the rule at fault in words a player understands. A refused action
//! never changes the game: the engine checks everything before it changes anything.

use thiserror::Error;

use crate::action::Seat;
use crate::bid::Bid;

/// An action the rules do not allow right now.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RuleError {
    #[error("the game is over")]
    GameOver,
    #[error("there is no seat {seat} at this table")]
    NoSuchSeat { seat: Seat },
    #[error("seat {seat} is out of the game")]
    OutOfTheGame { seat: Seat },
    #[error("it is seat {turn}'s turn, not seat {seat}'s")]
    NotYourTurn { seat: Seat, turn: Seat },
    #[error("faces run from 1 to {faces}; there is no face {face}")]
    FaceOutOfRange { face: u8, faces: u8 },
    #[error("a bid claims from 1 to {total} dice (the dice in play), not {quantity}")]
    QuantityOutOfRange { quantity: u16, total: u16 },
    #[error("the opening bid of a normal round may not be on the wild face ({face}s)")]
    OpeningOnWilds { face: u8 },
    #[error("the face is locked to {face}s in this Palifico round")]
    FaceLocked { face: u8 },
    #[error("{bid} does not raise {current}: {rule}")]
    BidNotHigher { bid: Bid, current: Bid, rule: &'static str },
    #[error("there is no bid yet: the round must be opened with a bid")]
    NoBidYet,
    #[error("there is no claim of seat {target} that may be challenged now")]
    NotChallengeable { target: Seat },
    #[error("{call} is not allowed: {why}")]
    ExactCallNotAllowed { call: &'static str, why: &'static str },
    #[error("pass is not allowed: {why}")]
    PassNotAllowed { why: &'static str },
    #[error("push is not allowed: {why}")]
    PushNotAllowed { why: &'static str },
    #[error("you cannot push a {face}: {why}")]
    PushDieMissing { face: u8, why: &'static str },
    #[error("{claim} does not beat the claim {current}")]
    ClaimNotHigher { claim: String, current: String },
    #[error("that is not a hand of {dice} dice with faces 1 to 6")]
    BadHand { dice: usize },
    #[error("roll is not allowed: {why}")]
    RollNotAllowed { why: &'static str },
    /// Positions count from 0 in an action (the wire, scripts); `dudo`'s `roll 1 3` counts
    /// from 1 and says so itself.
    #[error(
        "roll is not allowed: position {position} names no die of this hand (its {dice} dice are at positions 0 to {last})",
        last = dice.saturating_sub(1)
    )]
    NoSuchDie { position: usize, dice: usize },
    #[error("claim is not allowed: {why}")]
    ClaimNotAllowed { why: &'static str },
    #[error("accept is not allowed: {why}")]
    AcceptNotAllowed { why: &'static str },
    #[error("no challenge now: {why}")]
    ChallengeNotAllowed { why: &'static str },
    #[error("the dog's life is not yours to take or decline now")]
    NoDogsLife,
    #[error("`{call}` is not a call in this game")]
    NotInThisGame { call: String },
    #[error("watch is not allowed: {why}")]
    WatchNotAllowed { why: &'static str },
    #[error("the wild face ({face}s) is never bid at this table")]
    WildNeverBid { face: u8 },
    #[error("seat {seat} may only leave or be removed before the first bid of a round")]
    LeaveMidRound { seat: Seat },
}

impl RuleError {
    /// The rule broken, as a short stable name (for metrics and logs): "bid_not_higher".
    pub fn reason(&self) -> &'static str {
        match self {
            RuleError::GameOver => "game_over",
            RuleError::NoSuchSeat { .. } => "no_such_seat",
            RuleError::OutOfTheGame { .. } => "out_of_the_game",
            RuleError::NotYourTurn { .. } => "not_your_turn",
            RuleError::FaceOutOfRange { .. } => "face_out_of_range",
            RuleError::QuantityOutOfRange { .. } => "quantity_out_of_range",
            RuleError::OpeningOnWilds { .. } => "opening_on_wilds",
            RuleError::FaceLocked { .. } => "face_locked",
            RuleError::BidNotHigher { .. } => "bid_not_higher",
            RuleError::NoBidYet => "no_bid_yet",
            RuleError::NotChallengeable { .. } => "not_challengeable",
            RuleError::ExactCallNotAllowed { .. } => "exact_call_not_allowed",
            RuleError::PassNotAllowed { .. } => "pass_not_allowed",
            RuleError::PushNotAllowed { .. } => "push_not_allowed",
            RuleError::PushDieMissing { .. } => "push_die_missing",
            RuleError::ClaimNotHigher { .. } => "claim_not_higher",
            RuleError::BadHand { .. } => "bad_hand",
            RuleError::RollNotAllowed { .. } | RuleError::NoSuchDie { .. } => "roll_not_allowed",
            RuleError::ClaimNotAllowed { .. } => "claim_not_allowed",
            RuleError::AcceptNotAllowed { .. } => "accept_not_allowed",
            RuleError::ChallengeNotAllowed { .. } => "challenge_not_allowed",
            RuleError::NoDogsLife => "no_dogs_life",
            RuleError::NotInThisGame { .. } => "not_in_this_game",
            RuleError::WatchNotAllowed { .. } => "watch_not_allowed",
            RuleError::WildNeverBid { .. } => "wild_never_bid",
            RuleError::LeaveMidRound { .. } => "leave_mid_round",
        }
    }
}
