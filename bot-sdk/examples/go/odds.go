// The bot's decision: binomial odds from what the seat knows.
//
// A bid says "at least quantity dice on the table show face". The seat knows its own dice
// and every pushed die; each other die matches with p = 1/faces, or 2/faces when a wild
// face is set and the bid is not on it (a die showing the wild counts for every other
// face). The view's `wild` is optional: absent means no wild (a Palifico round, or rules
// without wilds), which is not the same as a wild on face 0.
//
// On its turn the bot challenges a bid that is less likely than not to hold (below 0.4)
// and otherwise makes the legal bid most likely to be true. Asked for a call out of turn
// (a call window), it calls calza when the bid is more likely than not exactly right, dudo
// when it is very unlikely, and passes otherwise. The games without bids (the cup games)
// get the same plain answers as the Python example's.
package main

import (
	"math"

	"github.com/dudo-game/dudo/bot-sdk/go/dudov1"
)

const (
	challengeBelow   = 0.4 // on our turn: dudo when the bid holds with less than this
	outOfTurnDudo    = 0.2 // in a call window: dudo only when it is this unlikely
	calzaAbove       = 0.5 // in a call window: calza when "exactly" is this likely
	tieEpsilon       = 1e-9
	defaultDiceFaces = 6
)

// knowledge is what one seat knows of the dice on the table.
type knowledge struct {
	known   []uint32 // dice the seat can see: its own under the cup, and every pushed die
	unknown int      // dice in play the seat cannot see
	wild    *uint32  // the wild face, or nil for none
	faces   uint32
}

func know(view *dudov1.View, faces uint32) knowledge {
	if faces == 0 {
		faces = defaultDiceFaces
	}
	k := knowledge{wild: view.Wild, faces: faces}
	total := 0
	for _, p := range view.GetPlayers() {
		if p.Place != nil { // out of the game: no dice in play
			continue
		}
		total += int(p.GetDice())
		k.known = append(k.known, p.GetPushed()...)
	}
	for _, d := range view.GetMyDice() {
		if d != 0 { // 0: a die hidden from its owner (the fibbing rules)
			k.known = append(k.known, d)
		}
	}
	k.unknown = total - len(k.known)
	if k.unknown < 0 {
		k.unknown = 0
	}
	return k
}

// odds gives the chances that at least, and exactly, quantity dice show face.
func (k knowledge) odds(quantity, face uint32) (atLeast, exactly float64) {
	wildHelps := k.wild != nil && face != *k.wild
	seen := 0
	for _, d := range k.known {
		if d == face || (wildHelps && d == *k.wild) {
			seen++
		}
	}
	p := 1 / float64(k.faces)
	if wildHelps {
		p = 2 / float64(k.faces)
	}
	need := int(quantity) - seen
	exactly = binomial(k.unknown, need, p)
	for i := need; i <= k.unknown; i++ {
		if i >= 0 {
			atLeast += binomial(k.unknown, i, p)
		}
	}
	if need <= 0 {
		atLeast = 1
	}
	return atLeast, exactly
}

// binomial is the chance of exactly k successes in n tries of chance p.
func binomial(n, k int, p float64) float64 {
	switch {
	case k < 0 || k > n:
		return 0
	case p <= 0:
		return boolOdds(k == 0)
	case p >= 1:
		return boolOdds(k == n)
	}
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(ln - lk - lnk + float64(k)*math.Log(p) + float64(n-k)*math.Log(1-p))
}

func boolOdds(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// lastClaimIsBid says whether the claim a dudo would challenge is a bid (not a pass, which
// is a claim about the passer's own dice that these odds say nothing about).
func lastClaimIsBid(view *dudov1.View) bool {
	claims := view.GetClaims()
	if len(claims) == 0 {
		return view.CurrentBid != nil
	}
	_, isPass := claims[len(claims)-1].Kind.(*dudov1.Claim_Pass)
	return !isPass
}

// choose answers a prompt on the seat's own turn. retry counts the server's refusals of
// this very prompt: after one the bot challenges if it may (as the clock would), after two
// it makes the plainest legal move, so a refusal never repeats itself.
func choose(view *dudov1.View, legal *dudov1.Legal, faces uint32, retry int) *dudov1.Action {
	if retry == 1 && len(legal.GetDudo()) > 0 {
		return dudo()
	}
	if retry > 0 {
		return plainest(view, legal)
	}
	k := know(view, faces)
	if bid := view.GetCurrentBid().GetBid(); view.CurrentBid != nil && len(legal.GetDudo()) > 0 && lastClaimIsBid(view) {
		if atLeast, _ := k.odds(bid.GetQuantity(), bid.GetFace()); atLeast < challengeBelow {
			return dudo()
		}
	}
	var best *dudov1.BidRange
	bestOdds := -1.0
	for _, r := range legal.GetBids() {
		if r.GetMinQuantity() == 0 || r.GetMinQuantity() > r.GetMaxQuantity() {
			continue
		}
		o, _ := k.odds(r.GetMinQuantity(), r.GetFace())
		better := o > bestOdds+tieEpsilon
		if !better && math.Abs(o-bestOdds) <= tieEpsilon { // a tie: the higher bid
			better = r.GetMinQuantity() > best.GetMinQuantity() ||
				(r.GetMinQuantity() == best.GetMinQuantity() && r.GetFace() > best.GetFace())
		}
		if better {
			best, bestOdds = r, o
		}
	}
	if best != nil {
		return bidAction(best.GetMinQuantity(), best.GetFace())
	}
	return plainest(view, legal)
}

// callOutOfTurn answers a call-window prompt: calza, dudo, or nil for pass_call (always,
// once a call of this window was refused).
func callOutOfTurn(view *dudov1.View, legal *dudov1.Legal, faces uint32, retry int) *dudov1.Action {
	if view.CurrentBid == nil || retry > 0 {
		return nil
	}
	bid := view.GetCurrentBid().GetBid()
	atLeast, exactly := know(view, faces).odds(bid.GetQuantity(), bid.GetFace())
	switch {
	case legal.GetCalza() && exactly > calzaAbove:
		return &dudov1.Action{Action: &dudov1.Action_Calza{Calza: &dudov1.Empty{}}}
	case len(legal.GetDudo()) > 0 && atLeast < outOfTurnDudo && lastClaimIsBid(view):
		return dudo()
	}
	return nil
}

// plainest is the simplest legal move of whatever family the game is: the cheapest bid, a
// challenge, the least claim allowed, a roll of every die, the dog's life, or accepting.
func plainest(view *dudov1.View, legal *dudov1.Legal) *dudov1.Action {
	for _, r := range legal.GetBids() {
		if r.GetMinQuantity() > 0 && r.GetMinQuantity() <= r.GetMaxQuantity() {
			return bidAction(r.GetMinQuantity(), r.GetFace())
		}
	}
	switch {
	case len(legal.GetDudo()) > 0:
		return dudo()
	case legal.ClaimFrom != nil: // the cup games: claim the least allowed
		return &dudov1.Action{Action: &dudov1.Action_Claim{Claim: legal.ClaimFrom}}
	case legal.Roll != nil:
		all := make([]uint32, len(view.GetHand().GetDice()))
		for i := range all {
			all[i] = uint32(i)
		}
		return &dudov1.Action{Action: &dudov1.Action_Roll{Roll: &dudov1.Roll{Dice: all}}}
	case legal.GetDogsLife():
		return &dudov1.Action{Action: &dudov1.Action_DogsLife{DogsLife: &dudov1.DogsLifeChoice{Bark: true}}}
	case legal.GetPass() && !legal.GetAccept():
		return &dudov1.Action{Action: &dudov1.Action_Pass{Pass: &dudov1.Empty{}}}
	case legal.GetWatch() && !legal.GetAccept():
		return &dudov1.Action{Action: &dudov1.Action_Watch{Watch: &dudov1.Empty{}}}
	}
	// Empty, the message with no fields, is defined in rules.proto: dudov1.Empty.
	return &dudov1.Action{Action: &dudov1.Action_Accept{Accept: &dudov1.Empty{}}}
}

func bidAction(quantity, face uint32) *dudov1.Action {
	return &dudov1.Action{Action: &dudov1.Action_Bid{Bid: &dudov1.Bid{Quantity: quantity, Face: face}}}
}

// dudo challenges the last claim: Dudo.target left unset (legal.dudo's first seat).
func dudo() *dudov1.Action {
	return &dudov1.Action{Action: &dudov1.Action_Dudo{Dudo: &dudov1.Dudo{}}}
}
