// Playing one seat over the Play stream, from the hello to the game_over event.
//
// One loop reads the stream (Recv) and answers from there, so nothing is sent from two
// goroutines at once (a grpc-go stream's Send is not safe for concurrent use). It answers
// each prompt once (prompts.go says how), resumes a dropped stream after the last event
// seen (`hello.since`), and opens a fresh one (no `since`) after ABORTED: the table was
// reset, or its seats renumbered, and a new snapshot follows.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/dudo-game/dudo/bot-sdk/go/dudov1"
)

// errTableGone: the table closed (NOT_FOUND) before the game was seen to its end.
var errTableGone = errors.New("the table is gone")

const (
	reopenAfter = 200 * time.Millisecond // then 400 ms, … up to 1 s
	reopenTries = 30                     // reopenings in a row with nothing received
)

// seatPlay is one seat's state across the streams it opens.
type seatPlay struct {
	name     string
	seat     uint32
	faces    uint32
	since    *uint64        // the last event seen: a dropped stream resumes after it
	answered *answer        // the prompt last answered: the same one again is not a new decision
	sent     *dudov1.Action // and the move sent for it (nil: pass_call)
	refusals map[answer]int // refusals of each prompt, so a refused move is not repeated
}

// playSeat plays the seat until game_over and returns its place (1 for the winner). It
// prints `NAME: game over, place P of N`, as the Python and Node examples do.
func playSeat(ctx context.Context, conn *grpc.ClientConn, table, token string, seat uint32, name string) (int, error) {
	s := &seatPlay{name: name, seat: seat, faces: defaultDiceFaces, refusals: map[answer]int{}}
	play := dudov1.NewPlayClient(conn)
	for tries := 0; ; tries++ {
		place, progressed, err := s.stream(ctx, play, table, token)
		if err == nil {
			return place, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if progressed {
			tries = 0
		}
		var ce *callError
		errors.As(err, &ce)
		switch {
		case ce != nil && ce.st.Code() == codes.NotFound:
			fmt.Printf("%s: the table is gone (%s)\n", name, ce.st.Message())
			return 0, errTableGone
		case ce != nil && ce.st.Code() == codes.Aborted:
			// Reset, or the seats renumbered: afresh with the token alone, and a new snapshot
			// (with the seat's number now) follows.
			s.since, s.answered = nil, nil
		case ce != nil && ce.code == "too_far_behind":
			s.since = nil // more to replay than a stream holds: a fresh snapshot instead
		case err == io.EOF || dropped(err):
			// A lost connection, a server restarting, the table moving to another node.
		default:
			return 0, err
		}
		if tries >= reopenTries {
			return 0, fmt.Errorf("%s: gave up after %d tries: %w", name, tries, err)
		}
		if tries == 0 {
			fmt.Fprintf(os.Stderr, "%s: stream ended (%v); opening it again\n", name, err)
		}
		// An answer sent as the stream dropped may not have arrived: the prompt that comes
		// on the reopened stream is answered again (a repeat is refused, changing nothing).
		s.answered = nil
		select {
		case <-time.After(reopenAfter * time.Duration(min(tries+1, 5))):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// stream opens one Play stream and plays on it. err nil: the game is over (place). err
// io.EOF: the server ended the stream without a status. progressed: something came.
func (s *seatPlay) stream(ctx context.Context, play dudov1.PlayClient, table, token string) (place int, progressed bool, err error) {
	ctx, cancel := context.WithCancel(withBearer(ctx, token))
	defer cancel() // ends the stream: a bot stops at game_over
	stream, err := play.Play(ctx)
	if err != nil {
		return 0, false, failed("Play", err, nil)
	}
	// Send errors are not looked at: on a stream the server ended, Send returns io.EOF and
	// the real status comes from Recv, below.
	_ = stream.Send(&dudov1.PlayRequest{Request: &dudov1.PlayRequest_Hello{Hello: &dudov1.Hello{Table: table, Since: s.since}}})
	for {
		update, err := stream.Recv()
		if err == io.EOF {
			return 0, progressed, io.EOF
		}
		if err != nil {
			// The status, and its dudo-code in the trailers, come once Recv has failed.
			return 0, progressed, failed("Play", err, stream.Trailer())
		}
		progressed = true
		// Everything is sent from here, this loop, so never from two goroutines at once.
		if place, over := s.handle(stream, update); over {
			_ = stream.CloseSend()
			return place, true, nil
		}
	}
}

// handle takes one update; over is true at game_over.
func (s *seatPlay) handle(stream dudov1.Play_PlayClient, update *dudov1.PlayUpdate) (place int, over bool) {
	switch u := update.Update.(type) {
	case *dudov1.PlayUpdate_Snapshot:
		s.tableInfo(u.Snapshot.GetTable())
		// Optional fields are pointers: nil is "not set", unlike a seat or a seq of 0.
		if u.Snapshot.LastSeq != nil {
			s.since = proto.Uint64(u.Snapshot.GetLastSeq())
		}
		if view := u.Snapshot.GetView(); view != nil && view.Seat != nil {
			s.seat = view.GetSeat()
		} else if u.Snapshot.Seat != nil {
			s.seat = u.Snapshot.GetSeat()
		}
	case *dudov1.PlayUpdate_Table:
		s.tableInfo(u.Table)
	case *dudov1.PlayUpdate_Prompt:
		s.answerPrompt(stream, u.Prompt)
	case *dudov1.PlayUpdate_Rejected:
		s.refused(u.Rejected)
	case *dudov1.PlayUpdate_Event:
		s.since = proto.Uint64(u.Event.GetSeq())
		if over, ok := u.Event.Kind.(*dudov1.Event_GameOver); ok {
			standings := over.GameOver.GetStandings()
			for i, seat := range standings {
				if seat == s.seat {
					place = i + 1
				}
			}
			fmt.Printf("%s: game over, place %d of %d\n", s.name, place, len(standings))
			return place, true
		}
	}
	return 0, false
}

func (s *seatPlay) tableInfo(info *dudov1.TableInfo) {
	if faces := info.GetRules().GetDice().GetFaces(); faces != 0 {
		s.faces = faces
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
