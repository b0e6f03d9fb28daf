//! Rule sets: every knob of every seed, as data.
//!
//! A [`RuleSet`] is plain serde data (TOML or JSON), validated by [`RuleSet::validate`]. Each
//! knob is an enum named after the rule it selects, consulted at the one place in the engine
//! where that rule matters. Presets (the `presets` module) are complete rule sets that users then
//! override field by field. `docs/rules.md` lists every knob with the seed that asks for it.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The most seats a table may have: a seat set is a 64-bit mask.
pub const MAX_PLAYERS: usize = 64;

/// A complete rule set for one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleSet {
    /// Display name, usually the preset the rule set started from.
    pub name: String,
    /// Which game: the common hand (every seed but the individual-hand games), or one of
    /// seed 002's individual-hand games.
    pub family: Family,
    /// How many players may sit at the table.
    pub players: PlayerLimits,
    /// Dice per player and faces per die (000: "maximum dice count", "maximum dice value").
    pub dice: DiceRules,
    /// Who makes the first call of the game (000, 001: a roll-off).
    pub first_starter: FirstStarter,
    /// Which face, if any, counts as every face (000: ones; 002: none, six, or ones unless opened).
    pub wilds: Wilds,
    /// How bids on the wild face relate to other bids (000: halve / double plus one).
    pub wild_bids: WildBids,
    /// Whether a normal round may be opened on the wild face (000, 004: no; 003: yes).
    pub opening_on_wilds: OpeningOnWilds,
    /// What counts as a higher bid (002's five systems; Perudo is `more_dice_or_higher_face`).
    pub bidding: BiddingSystem,
    /// What the loser of a challenge pays.
    pub dudo_penalty: DudoPenalty,
    /// Dice the loser of a Dudo loses (000 "dice lost on dudo").
    pub dice_lost_on_dudo: u8,
    /// The exact call: Calza (000), Jonti (003), Exact (004), or none.
    pub exact_call: ExactCall,
    /// Who opens the next round (000, 004: the loser; 003: the winner).
    pub next_starter: NextStarter,
    /// The special round for a player down to one die: Palifico (000, 003) or special rules (004).
    pub palifico: Palifico,
    /// Raise, push and re-roll (004; 002's push and re-roll).
    pub push: PushRule,
    /// Passing instead of raising (004: all dice the same face; 002: no two alike).
    pub pass: PassRule,
    /// Whether eliminated players see everyone's dice during a round (000, default on).
    pub losers_see_dice: LosersSeeDice,
    /// Whether a per-round summary of every call and the true counts is shown (000, default on).
    pub results_table: ResultsTable,
    /// The "fibbing" chances: dice hidden from, or misshown to, their owner (000).
    pub fibbing: Fibbing,
    /// When the game ends.
    pub game_end: GameEnd,
    /// Who may challenge, and when (002's out-of-sequence challenges).
    pub challenges: Challenges,
    /// Snyd's stairs (002).
    pub stairs: Stairs,
    /// Money (002's gambling).
    pub wager: Wager,
    /// Drinks (002's drinking game).
    pub drinks: Drinks,
    /// The points game (001), in force when `game_end` is `points`.
    pub points: Points,
    /// The individual-hand games (002): lives, five aces, the dog's life, Mexican drinks.
    pub hand: HandRules,
}

/// The family of the game: who holds dice and what claims are about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Everyone has dice; claims are about all the dice on the table.
    #[default]
    CommonHand,
    /// Liar Dice with five poker dice (002).
    PokerDice,
    /// The Stanford variation: six standard dice (002).
    Stanford,
    /// Mexican with three dice (002).
    Mexican,
    /// Mexican with two dice (002).
    MexicanTwoDice,
}

impl Family {
    /// The individual-hand game, if this is one.
    pub fn hand_game(self) -> Option<crate::hand::HandGame> {
        use crate::hand::HandGame;
        match self {
            Family::CommonHand => None,
            Family::PokerDice => Some(HandGame::PokerDice),
            Family::Stanford => Some(HandGame::Stanford),
            Family::Mexican => Some(HandGame::Mexican),
            Family::MexicanTwoDice => Some(HandGame::MexicanTwoDice),
        }
    }
}

/// Rules of the individual-hand games (002).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HandRules {
    /// Lives each player starts with ("each player has three lives"); Mexican keeps none.
    pub lives: u8,
    /// What a claim no better than the last one means.
    pub undercall: Undercall,
    /// The five-aces rule: the top claim must be rolled, in three tries.
    pub five_aces: FiveAces,
    /// The dog's life for the first player out.
    pub dogs_life: DogsLife,
    /// Whether dice may be rolled outside the box, in view of all (Stanford).
    pub show_dice: ShowDice,
    /// Mexican: drinks for another roll ("take a drink for another roll").
    pub reroll_drinks: u8,
    /// Mexican: drinks for losing a challenge ("two drinks").
    pub bluff_drinks: u8,
    /// Mexican with two dice: drinks for a bluff caught on a Betty Ford (54).
    pub betty_ford_drinks: u8,
    /// Mexican: the chance, in percent, of catching the dice in the cup.
    pub catch_percent: u8,
}

impl Default for HandRules {
    fn default() -> Self {
        HandRules {
            lives: 3,
            undercall: Undercall::TreatedAsBetter,
            five_aces: FiveAces::On,
            dogs_life: DogsLife::Offered,
            show_dice: ShowDice::Off,
            reroll_drinks: 1,
            bluff_drinks: 2,
            betty_ford_drinks: 10,
            catch_percent: 50,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undercall {
    /// "Should a player make an undercall, it is treated as Better" (002).
    TreatedAsBetter,
    /// A claim must beat the last one.
    Refused,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FiveAces {
    /// Accepting five aces means rolling them within three tries, or losing a life (002).
    On,
    /// Five aces can only be challenged.
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DogsLife {
    /// The first player out may bark for one more life; declined, it stays on offer (002).
    Offered,
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShowDice {
    Off,
    /// "Players can reveal dice ... roll them inside or outside of the box" (Stanford).
    Allowed,
}

/// How many seats a table may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlayerLimits {
    pub min: u8,
    pub max: u8,
}

impl Default for PlayerLimits {
    fn default() -> Self {
        PlayerLimits { min: 2, max: 12 }
    }
}

/// Dice per player and faces per die.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiceRules {
    /// Dice each player starts with.
    pub start: u8,
    /// The most dice a player may hold; exact calls win dice back up to this (000).
    pub max: u8,
    /// Faces on each die, numbered 1 to `faces` (000: 3-9).
    pub faces: u8,
}

impl Default for DiceRules {
    fn default() -> Self {
        DiceRules { start: 5, max: 5, faces: 6 }
    }
}

/// Who makes the first call of the game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FirstStarter {
    /// Everyone rolls one die, highest starts, ties re-roll among the tied (000, 001, 002).
    #[default]
    RollOff,
    /// Seat 0 starts (003 "designate someone"; OpenSpiel's player 0).
    FirstSeat,
}

/// Which face, if any, is wild.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wilds {
    /// No wild face (002 variant; every Palifico round).
    None,
    /// Ones count as every face (000, 003, 004).
    #[default]
    Ones,
    /// The highest face is wild ("6 is wild instead of 1", 002).
    HighestFace,
    /// Ones are wild unless the round was opened on ones (002 "US West Coast").
    OnesUnlessOpenedOnOnes,
}

/// How bids on the wild face compare with bids on other faces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WildBids {
    /// To wilds: half the quantity rounded up; from wilds: double plus one (000, 003, 004).
    #[default]
    HalveAndDoublePlusOne,
    /// The wild face is never bid ("picking a quantity of a face 2 through 6", 002).
    NeverBid,
    /// To wilds: half rounded up; from wilds: double, or one more than the last non-wild
    /// bid of the round, whichever is greater (002 "1s are bid in a special manner").
    HalveAndDoubleOrLastPlusOne,
    /// The wild face is bid like any other face (OpenSpiel).
    Plain,
}

/// Whether a normal round may open on the wild face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningOnWilds {
    /// "The player starting a round is not allowed to have their first call be ones" (000, 004).
    #[default]
    Forbidden,
    /// "Player 1 could have begun the round with 1's if he wanted to" (003).
    Allowed,
}

/// The five bidding systems of seed 002. Jumping is always allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BiddingSystem {
    /// (1) More of the same face, or any quantity of a higher face.
    MoreOfSameFaceOrHigherFace,
    /// (2) More dice of any face, or the same quantity of a higher face (Perudo; 000, 004).
    #[default]
    MoreDiceOrHigherFace,
    /// More dice of any face: "he must go 1 or more higher in number, but he DOES NOT have
    /// to use the same die digit" (003).
    MoreDice,
    /// (3) The quantity or the face above the higher of the previous bid's two numbers.
    AboveHighestNumber,
    /// (4) The product of quantity and face must rise.
    HigherProduct,
    /// (5) Neither quantity nor face may fall, and one must rise.
    NeitherFalls,
}

/// What the loser of a challenge pays. Seed 002's other penalties join this enum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DudoPenalty {
    /// The loser loses `dice_lost_on_dudo` dice (000, 003, 004).
    #[default]
    LoseDice,
    /// The loser loses the difference between the bid and the count, at least one die
    /// ("a sounder relationship between the probability and cost of over-bidding", 002).
    LoseDifference,
    /// The loser gives `dice_lost_on_dudo` dice to the winner, who may go above the maximum (002).
    GiveToWinner,
    /// Snyd (002): everyone but the loser discards `dice_lost_on_dudo` dice; players out of
    /// dice have finished, best first, and the last holding dice loses the game.
    Snyd,
    /// Nobody loses dice: for round-by-round wagers and drinking (002) and the points game (001).
    NoDice,
}

/// Who may challenge a bid, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Challenges {
    pub who: Challenger,
    /// What a failed challenge out of turn costs.
    pub failed_out_of_turn: OutOfTurnPenalty,
}

impl Default for Challenges {
    fn default() -> Self {
        Challenges { who: Challenger::NextPlayer, failed_out_of_turn: OutOfTurnPenalty::Same }
    }
}

/// Who may challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Challenger {
    /// The player due to answer the bid (every seed's default).
    NextPlayer,
    /// "Any player may challenge a bid at any time" (002, out-of-sequence challenges); when
    /// several challenge at once, the one closest to the bidder in play order is the challenger.
    Anyone,
}

/// The cost of a failed out-of-turn challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutOfTurnPenalty {
    Same,
    /// "Losing double the dice from their hand if they are incorrect" (002).
    Double,
}

/// Danish snyd's stairs (002): a player whose dice are exactly 1, 2, ... n (n dice) holds
/// n ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stairs {
    #[default]
    Off,
    On,
}

/// What a right exact call earns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExactReward {
    /// The caller wins `dice_won` dice back (000, 003, 004; 002 "gain a previously lost die").
    #[default]
    WinDice,
    /// Every other player loses `dice_won` dice (002 "make all other players pay").
    OthersLoseDice,
}

/// Seed 002's gambling: money moves, the ledger is in every view and in the standings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Wager {
    pub mode: WagerMode,
    /// The wager, in whatever units the table agrees.
    pub stake: u32,
}

impl Default for Wager {
    fn default() -> Self {
        Wager { mode: WagerMode::Off, stake: 1 }
    }
}

/// How money moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WagerMode {
    Off,
    /// Everyone stakes before the first round; the winner takes all (002).
    WinnerTakesAll,
    /// After each round the loser pays the winner the stake; others break even (002).
    LoserPaysWinnerEachRound,
}

/// Seed 002's drinking game: a drinks tally in every view and in the standings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Drinks {
    pub tally: DrinksTally,
    /// Drinks for losing a round ("the losing player ... take a drink").
    pub per_lost_round: u8,
    /// Drinks for each die lost.
    pub per_die_lost: u8,
    /// Drinks of the difference between the bid and the count, on top ("based upon the difference").
    pub by_difference: DrinksByDifference,
    /// Drinks on being eliminated ("an additional pre-arranged number").
    pub on_elimination: u8,
    /// Drinks every round while out ("a drink for every round played thereafter").
    pub each_round_while_out: u8,
    /// Multiplier for a failed out-of-turn challenge ("drinks a greater quantity (eg double)").
    pub failed_out_of_turn_multiplier: u8,
    /// Spot on: "a successful call means everyone else drinks, a failed call the caller drinks double".
    pub spot_on: SpotOnDrinks,
}

impl Default for Drinks {
    fn default() -> Self {
        Drinks {
            tally: DrinksTally::Off,
            per_lost_round: 1,
            per_die_lost: 0,
            by_difference: DrinksByDifference::Off,
            on_elimination: 0,
            each_round_while_out: 0,
            failed_out_of_turn_multiplier: 2,
            spot_on: SpotOnDrinks::OthersDrinkFailedDoubles,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrinksTally {
    Off,
    On,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrinksByDifference {
    Off,
    On,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpotOnDrinks {
    /// An exact call drinks like any lost round.
    Plain,
    /// Right: everyone else drinks; wrong: the caller drinks double (002).
    OthersDrinkFailedDoubles,
}

/// Seed 001's points game: Guess, Watch, Doubt, and points instead of dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Points {
    /// What a watcher's wrong last guess costs (the seed is silent).
    pub wrong_watcher: WrongWatcher,
    /// Whether the last guesses of players still guessing, other than the doubted one, score
    /// at the end of a round (the seed says "all valid guesses are checked").
    pub other_guesses: OtherGuesses,
}

impl Default for Points {
    fn default() -> Self {
        Points { wrong_watcher: WrongWatcher::LosesReduced, other_guesses: OtherGuesses::Ignored }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WrongWatcher {
    /// Costs nothing.
    Nothing,
    /// Costs the reduced points a right guess would have earned (the default).
    LosesReduced,
    /// Costs quantity times face, like a wrong guess that was doubted.
    LosesFull,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OtherGuesses {
    /// Only the doubted (or last standing) guess and the watchers' guesses score.
    Ignored,
    /// Every player's last guess scores: full points for active players.
    Scored,
}

/// The exact call, by whatever name the table uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExactCall {
    /// Who may make it, and when.
    pub who: ExactCaller,
    /// The least number of players still in the game for the call to be allowed (000: three).
    pub min_players: u8,
    /// Whether it may be made in a Palifico / special round (000: no).
    pub in_palifico: InPalifico,
    /// How often a player may make it (004: once per game).
    pub limit: ExactLimit,
    /// Dice won by a right call, never above the maximum (000 "dice won/lost on calza").
    pub dice_won: u8,
    /// Dice lost by a wrong call (000 "dice won/lost on calza").
    pub dice_lost: u8,
    /// The most dice a right call can bring a player back to.
    pub cap: ExactCap,
    /// What a right call earns: dice back, or every other player loses dice (002 spot on).
    pub reward: ExactReward,
}

/// How far a right exact call can bring a player's dice back up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExactCap {
    /// "You will win a dice back, up to a maximum" (000): `dice.max`.
    #[default]
    MaxDice,
    /// "Gains a die back (if they have lost any)" (004): the dice the player started with.
    StartingDice,
}

impl Default for ExactCall {
    fn default() -> Self {
        ExactCall {
            who: ExactCaller::NotBidderNorNext,
            min_players: 3,
            in_palifico: InPalifico::Forbidden,
            limit: ExactLimit::Unlimited,
            dice_won: 1,
            dice_lost: 1,
            cap: ExactCap::MaxDice,
            reward: ExactReward::WinDice,
        }
    }
}

/// Who may make the exact call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExactCaller {
    /// Nobody: the table plays without it.
    Off,
    /// Calza (000): anyone but the bidder and the player due next, at any moment.
    NotBidderNorNext,
    /// Jonti (003), Exact (004): the player due next, on their turn.
    OnTurn,
}

/// Whether a rule applies in Palifico rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InPalifico {
    Allowed,
    Forbidden,
}

/// How often each player may make the exact call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExactLimit {
    Unlimited,
    /// "Each player only gets one exact action PER GAME" (004).
    OncePerGame,
}

/// Who opens the next round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NextStarter {
    /// The player whose dice changed: the loser of a Dudo, the exact caller (000, 004).
    /// If they are out, the next player still in starts.
    #[default]
    Loser,
    /// The winner of the challenge; for an exact call, the caller if right, else the bidder (003).
    Winner,
    /// The player after the last round's starter ("the next player in the turn order", 001).
    NextInOrder,
}

/// The special round a player triggers on dropping to one die.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Palifico {
    /// When a player's drop to one die makes the next round special.
    pub trigger: PalificoTrigger,
    /// The least number of players still in for the round to be special (000: three).
    pub min_players: u8,
    /// Who opens the special round.
    pub opener: PalificoOpener,
    /// Who may change the face once the round is opened.
    pub face_change: PalificoFaceChange,
}

impl Default for Palifico {
    fn default() -> Self {
        Palifico {
            trigger: PalificoTrigger::FirstTimeOnOneDie,
            min_players: 3,
            opener: PalificoOpener::UsualStarter,
            face_change: PalificoFaceChange::ExPalificoMayRaise,
        }
    }
}

/// When a special round happens. In it ones are never wild and are the lowest face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PalificoTrigger {
    Off,
    /// The first time a player has one die (000, 004): once per player per game.
    FirstTimeOnOneDie,
    /// Every time a player reaches one die (003).
    EveryTimeOnOneDie,
}

/// Who opens a special round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PalificoOpener {
    /// Whoever the next-starter rule picks (000, 004).
    UsualStarter,
    /// "The player with the single die begins this round" (003).
    OneDiePlayer,
}

/// Who may change the face in a special round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PalificoFaceChange {
    /// Nobody: the opening face is kept to the end (003).
    Locked,
    /// Ex-Palifico players may raise the face without lowering the quantity (000).
    ExPalificoMayRaise,
    /// Players who now hold one die bid by the normal rules; the rest keep the face (004).
    OneDiePlayersMayChange,
}

/// Raise, push and re-roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PushRule {
    /// Which dice may be pushed.
    pub dice: PushDice,
    /// How often.
    pub limit: PushLimit,
}

impl Default for PushRule {
    fn default() -> Self {
        PushRule { dice: PushDice::Off, limit: PushLimit::Unlimited }
    }
}

/// Which dice a push may show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushDice {
    Off,
    /// Any proper subset of the dice under the cup, with any raise (004).
    AnyDice,
    /// Dice of one face, and the raise must be on that face (002).
    MatchingBidFace,
}

/// How often a player may push.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushLimit {
    /// As long as a die stays under the cup (004).
    Unlimited,
    /// Once per player per round (002).
    OncePerPlayerPerRound,
    /// Once per round for the whole table (002).
    OncePerRound,
}

/// Passing: a claim about your own dice instead of a raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PassRule {
    /// What a pass claims about the passer's dice.
    pub claim: PassClaim,
    /// How often a player may pass.
    pub limit: PassLimit,
    /// Which earlier claims may be challenged after passes.
    pub challenge: PassChallenge,
    /// The least dice a player must hold to pass (004: two).
    pub min_dice: u8,
}

impl Default for PassRule {
    fn default() -> Self {
        PassRule {
            claim: PassClaim::Off,
            limit: PassLimit::OncePerRoll,
            challenge: PassChallenge::LastOrOneBeforeAPass,
            min_dice: 2,
        }
    }
}

/// What a pass claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassClaim {
    Off,
    /// All my dice show the same face, naturally (004).
    AllSameFace,
    /// No two of my dice show the same face (002).
    AllDifferent,
}

/// How often a player may pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassLimit {
    /// Once per set of dice: again after a re-roll (004).
    OncePerRoll,
    /// Once per round (002).
    OncePerRound,
}

/// Which claims may be challenged once passes are on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassChallenge {
    /// The last claim; if it was a pass, also the one before it (004).
    LastOrOneBeforeAPass,
    /// The last claim or any pass in the run of passes ending with it (002).
    AnyConsecutivePass,
}

/// Whether eliminated players see all dice while rounds are played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LosersSeeDice {
    /// "Players who have lost will be able to see the dice for all players" (000 default).
    #[default]
    AllDice,
    /// Eliminated players see what spectators see.
    Hidden,
}

/// Whether a per-round summary of every call with its true count is published.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultsTable {
    #[default]
    On,
    Off,
}

/// Seed 000's "random chance to hide each dice" and "... with a different value".
///
/// Each die, when rolled, is hidden from its owner with `hide_percent` chance, else shown to
/// its owner with a different value with `misshow_percent` chance. The true value is what
/// counts and what a reveal shows; nobody is told which dice were misshown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fibbing {
    pub hide_percent: u8,
    pub misshow_percent: u8,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// When one player has dice left (every seed).
    #[default]
    LastPlayerStanding,
    /// After one round: the winner of its challenge wins (OpenSpiel's liars_dice).
    SingleRound,
    /// After this many rounds (round-by-round wagers and drinking, 002); ranked by money,
    /// then drinks, then dice.
    Rounds(u32),
    /// When a player's points reach exactly this target (001: 50, 75 or 100); points that
    /// would pass it are discarded.
    Points(u32),
}

/// A rule set that cannot be played, with the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("rule set field `{field}`: {problem}")]
pub struct InvalidRules {
    /// The field's path, as a setting names it (`dice.faces`).
    pub field: std::borrow::Cow<'static, str>,
    pub problem: String,
}

fn invalid(field: &'static str, problem: impl Into<String>) -> InvalidRules {
    InvalidRules { field: field.into(), problem: problem.into() }
}

/// The longest rule-set name, in characters (the server's bound for every name field).
pub const MAX_NAME_CHARS: usize = 64;

impl RuleSet {
    /// Checks every field, naming the first one that cannot be played.
    pub fn validate(&self) -> Result<(), InvalidRules> {
        const MAX_LIVES: u8 = 20;
        const MAX_ROUNDS: u32 = 1_000;
        const MAX_POINTS: u32 = 10_000;
        const MAX_STAKE: u32 = 1_000_000;
        // One bound for the name however it is set (a whole rule set, or `name=` as a setting).
        let name_chars = self.name.chars().count();
        if name_chars > MAX_NAME_CHARS {
            return Err(invalid("name", format!("{name_chars} characters; at most {MAX_NAME_CHARS}")));
        }
        // Shown in lobbies and headers as it is: nothing that moves a terminal's cursor,
        // reorders a line (bidirectional overrides) or hides itself.
        if let Some(c) = self.name.chars().find(|&c| {
            c.is_control()
                || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{061C}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
        }) {
            return Err(invalid("name", format!("U+{:04X} is not allowed in a rule set's name", u32::from(c))));
        }
        let p = self.players;
        if p.min < 2 {
            return Err(invalid("players.min", "a game needs at least 2 players"));
        }
        if usize::from(p.max) > MAX_PLAYERS {
            return Err(invalid("players.max", format!("at most {MAX_PLAYERS} players")));
        }
        if p.max < p.min {
            return Err(invalid("players.max", "must be at least players.min"));
        }
        let d = self.dice;
        if !(1..=20).contains(&d.start) {
            return Err(invalid("dice.start", format!("{} is not in 1-20", d.start)));
        }
        if !(1..=40).contains(&d.max) || d.max < d.start {
            return Err(invalid("dice.max", "must be at least dice.start and at most 40"));
        }
        if !(3..=9).contains(&d.faces) {
            return Err(invalid("dice.faces", format!("{} is not in 3-9", d.faces)));
        }
        if self.dice_lost_on_dudo == 0 || self.dice_lost_on_dudo > d.max {
            return Err(invalid("dice_lost_on_dudo", "must be from 1 to dice.max"));
        }
        let e = self.exact_call;
        if e.who != ExactCaller::Off {
            if e.dice_won == 0 || e.dice_won > d.max {
                return Err(invalid("exact_call.dice_won", "must be from 1 to dice.max"));
            }
            if e.dice_lost == 0 || e.dice_lost > d.max {
                return Err(invalid("exact_call.dice_lost", "must be from 1 to dice.max"));
            }
            if e.who == ExactCaller::NotBidderNorNext && e.min_players < 3 {
                return Err(invalid(
                    "exact_call.min_players",
                    "a call by neither the bidder nor the next player needs at least 3 players",
                ));
            }
        }
        if self.palifico.trigger != PalificoTrigger::Off && self.palifico.min_players < 2 {
            return Err(invalid("palifico.min_players", "must be at least 2"));
        }
        if self.pass.claim != PassClaim::Off && self.pass.min_dice == 0 {
            return Err(invalid("pass.min_dice", "must be at least 1"));
        }
        if self.family != Family::CommonHand {
            if self.family != Family::Mexican && self.family != Family::MexicanTwoDice && self.hand.lives == 0
            {
                return Err(invalid("hand.lives", "players need at least one life"));
            }
            if matches!(self.game_end, GameEnd::SingleRound | GameEnd::Points(_)) {
                return Err(invalid(
                    "game_end",
                    "the individual-hand games end with the last player standing or after a number of rounds",
                ));
            }
            if matches!(self.family, Family::Mexican | Family::MexicanTwoDice)
                && !matches!(self.game_end, GameEnd::Rounds(_))
            {
                return Err(invalid("game_end", "Mexican is played for a number of rounds: game_end rounds"));
            }
        }
        // Every field is checked whatever the family, so a rule set never carries a value
        // no game could use.
        if self.hand.catch_percent > 100 {
            return Err(invalid("hand.catch_percent", "a chance from 0 to 100"));
        }
        if self.hand.lives > MAX_LIVES {
            return Err(invalid("hand.lives", format!("at most {MAX_LIVES}")));
        }
        // A game must end in practice: the ranges a real game needs.
        match self.game_end {
            GameEnd::Rounds(0) => return Err(invalid("game_end", "a game of rounds needs at least one")),
            GameEnd::Rounds(n) if n > MAX_ROUNDS => {
                return Err(invalid("game_end", format!("a game of rounds has at most {MAX_ROUNDS}")));
            }
            GameEnd::Points(0) => return Err(invalid("game_end", "a points target must be above zero")),
            GameEnd::Points(n) if n > MAX_POINTS => {
                return Err(invalid("game_end", format!("a points target is at most {MAX_POINTS}")));
            }
            _ => {}
        }
        if self.wager.stake > MAX_STAKE {
            return Err(invalid("wager.stake", format!("at most {MAX_STAKE}")));
        }
        if self.dudo_penalty == DudoPenalty::NoDice
            && matches!(self.game_end, GameEnd::LastPlayerStanding)
            && self.exact_call.who == ExactCaller::Off
        {
            return Err(invalid(
                "dudo_penalty",
                "with no dice lost, the game needs an end: game_end rounds or points",
            ));
        }
        if matches!(self.game_end, GameEnd::Points(_)) {
            // 001 is Guess, Watch and Doubt for points: nothing that moves dice or skips a guess.
            let field = if self.dudo_penalty != DudoPenalty::NoDice {
                Some("dudo_penalty")
            } else if self.exact_call.who != ExactCaller::Off {
                Some("exact_call.who")
            } else if self.pass.claim != PassClaim::Off {
                Some("pass.claim")
            } else if self.push.dice != PushDice::Off {
                Some("push.dice")
            } else {
                None
            };
            if let Some(field) = field {
                return Err(invalid(
                    field,
                    "the points game (game_end points) loses no dice and has only Guess, Watch and Doubt: set dudo_penalty no_dice and turn exact_call, pass and push off",
                ));
            }
        }
        if self.wager.mode != WagerMode::Off && self.wager.stake == 0 {
            return Err(invalid("wager.stake", "a wager must stake something"));
        }
        let f = self.fibbing;
        if f.hide_percent > 100 || f.misshow_percent > 100 {
            return Err(invalid("fibbing", "chances are percentages from 0 to 100"));
        }
        Ok(())
    }

    /// The face that is wild in a normal round before the opening bid, if any.
    pub fn wild_face(&self) -> Option<u8> {
        match self.wilds {
            Wilds::None => None,
            Wilds::Ones | Wilds::OnesUnlessOpenedOnOnes => Some(1),
            Wilds::HighestFace => Some(self.dice.faces),
        }
    }
}
