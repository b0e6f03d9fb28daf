// Tournaments: enter one over Tournaments.Enter as an account and play every seat the
// schedule gives, as bot-sdk/examples/python/tournament.py does.
//
//	DUDO_API_TOKEN=dudo_... dudobot tournament SERVER ID
//
// Each seat it is told of is played once, on a goroutine of its own (seat.go). If the
// stream drops (the server restarted, say), it enters again, for up to two minutes: the
// server tells it again of every game it is seated at, and a game already in hand is not
// started twice. It ends when the tournament does, and prints the standings.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/dudo-game/dudo/bot-sdk/go/dudov1"
)

func runTournament(args []string) error {
	api := os.Getenv("DUDO_API_TOKEN")
	if len(args) != 2 || api == "" {
		return fmt.Errorf("usage: DUDO_API_TOKEN=dudo_... dudobot tournament SERVER ID")
	}
	id := args[1]
	conn, err := openChannel(args[0])
	if err != nil {
		return err
	}
	defer conn.Close()
	tournaments := dudov1.NewTournamentsClient(conn)
	name := "dudobot"
	seated := map[string]bool{} // the games in hand, by id: one told again is played once
	var running sync.WaitGroup
	var failingSince time.Time
	for {
		ctx, cancel := context.WithCancel(withBearer(context.Background(), api))
		over, err := func() (*dudov1.Tournament, error) {
			defer cancel()
			stream, err := tournaments.Enter(ctx, &dudov1.TournamentRef{Tournament: id})
			if err != nil {
				return nil, failed("Tournaments.Enter", err, nil)
			}
			for {
				update, err := stream.Recv()
				if err == io.EOF {
					return nil, err
				} else if err != nil {
					return nil, failed("Tournaments.Enter", err, stream.Trailer())
				}
				failingSince = time.Time{}
				switch u := update.Update.(type) {
				case *dudov1.TournamentUpdate_Entered:
					t := u.Entered.GetTournament()
					if n := int(u.Entered.GetEntrant()); n < len(t.GetEntrants()) {
						name = t.GetEntrants()[n].GetName()
					}
					fmt.Printf("%s is entrant %d of %s (%s)\n", name, u.Entered.GetEntrant(), t.GetName(), t.GetId())
				case *dudov1.TournamentUpdate_Seated:
					s := u.Seated
					key := s.GetGame()
					if key == "" {
						key = s.GetTable()
					}
					if seated[key] {
						continue // told again after entering again
					}
					seated[key] = true
					running.Add(1)
					go func(name string) {
						defer running.Done()
						_, err := playSeat(context.Background(), conn, s.GetTable(), s.GetToken(), s.GetSeat(), name)
						if err != nil && !errors.Is(err, errTableGone) {
							fmt.Fprintf(os.Stderr, "%s: game %d (table %s): %v\n", name, s.GetNumber(), s.GetTable(), err)
						}
					}(name)
				case *dudov1.TournamentUpdate_Ended:
					fmt.Fprintf(os.Stderr, "%s: game %d ended, place %d\n", name, u.Ended.GetNumber(), u.Ended.GetPlace())
				case *dudov1.TournamentUpdate_Over:
					return u.Over.GetTournament(), nil
				}
			}
		}()
		if over != nil {
			waitFor(&running, 10*time.Second) // every game is over: their last lines
			return standings(tournaments, id, over)
		}
		var ce *callError
		if errors.As(err, &ce) && ce.code == "entered_again" {
			return fmt.Errorf("another stream entered this tournament as this account: %w", err)
		}
		if err != io.EOF && !dropped(err) {
			return err
		}
		if failingSince.IsZero() {
			failingSince = time.Now()
			fmt.Fprintf(os.Stderr, "%s: the tournament stream ended (%v); entering again for up to two minutes\n", name, err)
		} else if time.Since(failingSince) > giveUpAfter {
			return fmt.Errorf("the tournament could not be entered for two minutes: %w", err)
		}
		time.Sleep(time.Second)
	}
}

// standings prints the tournament's end and its standings, best first.
func standings(tournaments dudov1.TournamentsClient, id string, t *dudov1.Tournament) error {
	var st *dudov1.TournamentStandings
	err := unary(context.Background(), "Tournaments.Standings", func(ctx context.Context, trailer grpc.CallOption) (err error) {
		st, err = tournaments.Standings(ctx, &dudov1.TournamentRef{Tournament: id}, trailer)
		return err
	})
	if err != nil {
		return err
	}
	why := t.GetWhy()
	if why == "" {
		why = "finished"
	}
	fmt.Printf("%s: %s; %d games\n", t.GetName(), why, st.GetGames())
	for i, e := range st.GetEntrants() {
		fmt.Printf("%3d. %-20s %.3f points a game, mean place %.2f\n", i+1, e.GetName(), e.GetMeanPoints(), e.GetMeanPlace())
	}
	return nil
}
