// Answering prompts: once each, by last_seq, and again after a refusal.
//
// A prompt that comes again with the same last_seq is the same decision, answered once.
// After a refusal (a `rejected` update whose code is not `stale_prompt`, nor
// `call_window_closed`: the game moved on, and its fresh prompt went out as it moved) the
// answer is forgotten: the server prompts the seat again at once, with the same last_seq,
// and that prompt is answered with a plainer move than the refused one. A call window's
// prompt is answered at once, with a call or with pass_call.
package main

import (
	"fmt"
	"os"

	"google.golang.org/protobuf/proto"

	"github.com/dudo-game/dudo/bot-sdk/go/dudov1"
)

// refusalsMax is how many refusals of one prompt the bot takes before it leaves that
// move to the clock (each answer after a refusal is a plainer move than the one before).
const refusalsMax = 3

// answer is what one prompt was answered with: its last_seq, and whether it was a call
// window's (a seat's turn prompt and its window prompt are different decisions).
type answer struct {
	seq    uint64
	window bool
}

// answerPrompt answers a prompt for the seat's turn, or a call window's, once.
func (s *seatPlay) answerPrompt(stream dudov1.Play_PlayClient, p *dudov1.Prompt) {
	if p == nil || p.View == nil || p.Legal == nil {
		return
	}
	window := p.CallWindowUnixMillis != nil
	seat := s.seat
	if p.View.Seat != nil {
		seat = p.View.GetSeat()
	}
	if !window && (p.View.Turn == nil || p.View.GetTurn() != seat) {
		return // not ours to answer (the seat sees where the game stands)
	}
	this := answer{seq: p.GetLastSeq(), window: window}
	if s.answered != nil && *s.answered == this {
		return // the same decision again (after a call window closed, say): answered once
	}
	retry := s.refusals[this]
	if retry >= refusalsMax {
		fmt.Fprintf(os.Stderr, "%s: refused %d times at seq %d: leaving this move to the clock\n", s.name, retry, this.seq)
		s.answered, s.sent = &this, nil // said once: its repeats are not answered either
		return
	}
	s.answered, s.sent = &this, nil
	// `answers` names the prompt: an answer that arrives after the game moved on is refused
	// (stale_prompt) instead of being played where it was not meant.
	request := &dudov1.PlayRequest{Answers: p.LastSeq}
	if window {
		// A call out of turn: answer at once, or the table waits for the window to close.
		if s.sent = callOutOfTurn(p.GetView(), p.GetLegal(), s.faces, retry); s.sent != nil {
			request.Request = &dudov1.PlayRequest_Action{Action: s.sent}
		} else {
			request.Request = &dudov1.PlayRequest_PassCall{PassCall: &dudov1.PassCall{}}
		}
	} else {
		s.sent = choose(p.GetView(), p.GetLegal(), s.faces, retry)
		request.Request = &dudov1.PlayRequest_Action{Action: s.sent}
	}
	_ = stream.Send(request) // an error shows on Recv
}

// refused takes a refusal of something the seat sent.
func (s *seatPlay) refused(r *dudov1.Rejected) {
	fmt.Fprintf(os.Stderr, "%s: refused (%s): %s\n", s.name, r.GetCode(), r.GetReason())
	if r.GetCode() == "stale_prompt" || r.GetCode() == "call_window_closed" || s.answered == nil {
		return // the game had moved on (a window had closed): a fresh prompt follows
	}
	if s.sent != nil && !proto.Equal(r.GetAction(), s.sent) {
		return // an older answer's refusal, arriving late: the last one still stands
	}
	// The server prompts the seat again at once after a refused move, with the same
	// last_seq: that prompt must be answered, so the answer is forgotten.
	refused := *s.answered
	s.answered = nil
	switch r.GetCode() {
	case "rate_limited", "server_busy", "already_answered", "no_call_window",
		"not_started", "game_over", "not_seated", "out_of_the_game", "leaving":
		// Not the move's fault: the seat is prompted again when it may move (rate_limited),
		// or there is nothing to answer now (a reset, the game's end, no window asking).
		return
	}
	// The prompt that comes next is answered with a plainer move (pass_call, in a window).
	s.refusals[refused]++
}
