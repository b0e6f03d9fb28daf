// The ladder: enter a pool over Ladder.Enter as an account and play every game it seats.
//
//	DUDO_API_TOKEN=dudo_... dudobot ladder SERVER POOL [-at-once N] [-games N]
//
// Each `seated` game is played on a goroutine of its own over the ordinary Play stream
// (seat.go). A game counts once, when the Enter stream says it `ended` or when its
// goroutine saw game_over, whichever comes first (the two travel on different streams).
// The entry asks for the games still to deal (EnterRequest.games): the server seats it at
// no more, and ends the stream once they have all ended. It never closes the stream to
// leave the queue: a seat dealt as it closed would reach nobody, and its time-outs would
// bench the account. A stream that drops (a server restarting, the ladder moving to
// another node: `ladder_moving`) is entered again, for up to two minutes; the server then
// tells again of the games in play.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/dudo-game/dudo/bot-sdk/go/dudov1"
)

const giveUpAfter = 2 * time.Minute // entering again, while the server cannot be reached

// parseAnywhere parses flags given before, between or after the positional arguments.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional, args = append(positional, fs.Arg(0)), fs.Args()[1:]
	}
}

// seatEnded is a game goroutine's end.
type seatEnded struct {
	table string
	place int
}

func runLadder(args []string) error {
	fs := flag.NewFlagSet("ladder", flag.ContinueOnError)
	atOnce := fs.Uint("at-once", 1, "games to play at once (up to the pool's max_games)")
	games := fs.Int("games", 0, "games to play in all (0: for ever)")
	positional, err := parseAnywhere(fs, args)
	if err != nil {
		return err
	}
	api := os.Getenv("DUDO_API_TOKEN")
	if len(positional) != 2 || api == "" {
		return fmt.Errorf("usage: DUDO_API_TOKEN=dudo_... dudobot ladder SERVER POOL [-at-once N] [-games N]")
	}
	conn, err := openChannel(positional[0])
	if err != nil {
		return err
	}
	defer conn.Close()
	pool := positional[1]
	name := accountName(conn, api)
	ladder := dudov1.NewLadderClient(conn)

	seen := map[string]bool{}   // every table seated at: one told again is not a new game
	inPlay := map[string]bool{} // the games not yet counted
	done := 0
	ended := make(chan seatEnded)
	var running sync.WaitGroup
	var failingSince time.Time
	finish := func(table string) {
		if inPlay[table] {
			delete(inPlay, table)
			done++
		}
	}
	for *games == 0 || done < *games {
		toDeal := 0 // no end
		if *games > 0 {
			toDeal = *games - done - len(inPlay)
		}
		if *games > 0 && toDeal == 0 {
			// All dealt (the stream dropped after the last seat): the games in play end.
			finish((<-ended).table)
			continue
		}
		ctx, cancel := context.WithCancel(withBearer(context.Background(), api))
		request := &dudov1.EnterRequest{Pool: pool, AtOnce: uint32(*atOnce), Games: uint32(toDeal)}
		updates, failure := enterLadder(ctx, ladder, request)
		err = nil
	entered:
		for {
			select {
			case e := <-ended:
				finish(e.table)
			case err = <-failure:
				break entered
			case u := <-updates:
				failingSince = time.Time{}
				switch u := u.Update.(type) {
				case *dudov1.LadderUpdate_Seated:
					s := u.Seated
					if seen[s.GetTable()] {
						continue // told again after entering again: already in hand
					}
					seen[s.GetTable()], inPlay[s.GetTable()] = true, true
					fmt.Fprintf(os.Stderr, "%s: seated at seat %d of table %s (game %s)\n", name, s.GetSeat(), s.GetTable(), s.GetGame())
					running.Add(1)
					go func() {
						defer running.Done()
						place, err := playSeat(context.Background(), conn, s.GetTable(), s.GetToken(), s.GetSeat(), name)
						if err != nil && !errors.Is(err, errTableGone) {
							fmt.Fprintf(os.Stderr, "%s: the game at table %s: %v\n", name, s.GetTable(), err)
						}
						ended <- seatEnded{s.GetTable(), place}
					}()
				case *dudov1.LadderUpdate_Ended:
					fmt.Fprintf(os.Stderr, "%s: game %s ended, place %d\n", name, u.Ended.GetGame(), u.Ended.GetPlace())
					finish(u.Ended.GetTable())
				case *dudov1.LadderUpdate_Queued:
					q := u.Queued
					fmt.Fprintf(os.Stderr, "%s: in %s: %d waiting, %d of ours in play, rating %.2f\n", name, q.GetPool(), q.GetWaiting(), q.GetPlaying(), q.GetRating())
				case *dudov1.LadderUpdate_Benched:
					b := u.Benched
					fmt.Fprintf(os.Stderr, "%s: benched until %s: %s\n", name, time.UnixMilli(int64(b.GetUntilUnixMillis())).Format(time.RFC3339), b.GetWhy())
				}
			}
		}
		cancel()
		if err == io.EOF && *games > 0 && done+len(inPlay) >= *games {
			continue // the server ended it: every game dealt (and those in play end soon)
		}
		var ce *callError
		if errors.As(err, &ce) && ce.code == "already_entered" {
			// The stream before this one is still being closed on the server's side.
			time.Sleep(200 * time.Millisecond)
			continue
		} else if err != io.EOF && !dropped(err) {
			return err
		}
		if failingSince.IsZero() {
			failingSince = time.Now()
			fmt.Fprintf(os.Stderr, "%s: the ladder stream ended (%v); entering again for up to two minutes\n", name, err)
		} else if time.Since(failingSince) > giveUpAfter {
			return fmt.Errorf("the ladder could not be entered for two minutes: %w", err)
		}
		time.Sleep(time.Second)
	}
	go func() { // the goroutines still to finish say so here, and nobody is counting
		for range ended {
		}
	}()
	waitFor(&running, 30*time.Second)
	fmt.Printf("%s: %d ladder games played in %s\n", name, done, pool)
	return nil
}

// waitFor waits for the goroutines of wg, at most for the given time.
func waitFor(wg *sync.WaitGroup, most time.Duration) {
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(most):
	}
}

// enterLadder opens Ladder.Enter and reads it on a goroutine of its own: its updates, and
// then how it ended (io.EOF: without a status). Cancel ctx to leave the queue.
func enterLadder(ctx context.Context, ladder dudov1.LadderClient, request *dudov1.EnterRequest) (<-chan *dudov1.LadderUpdate, <-chan error) {
	updates, failure := make(chan *dudov1.LadderUpdate), make(chan error, 1)
	stream, err := ladder.Enter(ctx, request)
	if err != nil {
		failure <- failed("Ladder.Enter", err, nil)
		return updates, failure
	}
	go func() {
		for {
			u, err := stream.Recv()
			if err != nil {
				if err != io.EOF {
					err = failed("Ladder.Enter", err, stream.Trailer())
				}
				failure <- err
				return
			}
			select {
			case updates <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	return updates, failure
}
