// dudobot: a complete dudo bot in Go, with grpc-go and stubs generated from proto/
// (package dudov1; `bash scripts/go-env.sh` generates them and builds this program).
//
//	dudobot play SERVER TABLE [NAME]     join a table by its join code and play one game
//	dudobot ladder SERVER POOL [-at-once N] [-games N]     (with DUDO_API_TOKEN)
//	dudobot tournament SERVER ID                           (with DUDO_API_TOKEN)
//
// SERVER is host:port (plaintext) or https://host:port (TLS, trusting the system's roots or
// the CA certificate DUDO_CA_CERT names). `dudobot` alone, or `dudobot play` without
// arguments, reads the environment the other example bots read: DUDO_SERVER, DUDO_TABLE,
// DUDO_BOT_NAME; DUDO_API_TOKEN to sit as an account; DUDO_TOKEN and DUDO_SEAT to play a
// seat already held, as `dudo ladder --bot`, `dudo tournament enter --bot` and
// `dudo arena --external` start a bot.
//
// This file reads the command line and joins the table; odds.go decides, seat.go plays a
// seat over its Play stream and prompts.go answers its prompts, ladder.go and
// tournament.go enter those over their streams, conn.go connects.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"google.golang.org/grpc"

	"github.com/dudo-game/dudo/bot-sdk/go/dudov1"
)

const usage = `usage:
  dudobot play SERVER TABLE [NAME]          join a table by its join code, play one game
  dudobot ladder SERVER POOL [-at-once N] [-games N]    enter a ladder pool (DUDO_API_TOKEN)
  dudobot tournament SERVER ID              enter a tournament (DUDO_API_TOKEN)
  dudobot                                   play as the environment says (DUDO_SERVER,
                                            DUDO_TABLE, DUDO_BOT_NAME, DUDO_API_TOKEN,
                                            DUDO_TOKEN and DUDO_SEAT)
SERVER is host:port, or https://host:port for TLS (DUDO_CA_CERT names a CA to trust).`

func main() {
	args := os.Args[1:]
	command := "play"
	if len(args) > 0 && !strings.Contains(args[0], ":") {
		command, args = args[0], args[1:]
	}
	var err error
	switch command {
	case "play":
		err = runPlay(args)
	case "ladder":
		err = runLadder(args)
	case "tournament":
		err = runTournament(args)
	case "help", "-h", "-help", "--help":
		fmt.Println(usage)
		return
	default:
		err = fmt.Errorf("unknown command %q\n%s", command, usage)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dudobot:", err)
		os.Exit(1)
	}
}

// arg is args[i], or the environment variable env, or def.
func arg(args []string, i int, env, def string) string {
	if i < len(args) && args[i] != "" {
		return args[i]
	}
	if v := os.Getenv(env); v != "" {
		return v
	}
	return def
}

// runPlay plays one game at one table and prints `NAME: game over, place P of N`.
func runPlay(args []string) error {
	if len(args) > 3 {
		return fmt.Errorf("too many arguments\n%s", usage)
	}
	server := arg(args, 0, "DUDO_SERVER", "127.0.0.1:50051")
	table := arg(args, 1, "DUDO_TABLE", "")
	name := arg(args, 2, "DUDO_BOT_NAME", "gobot")
	if table == "" {
		return fmt.Errorf("no table: give a join code, or set DUDO_TABLE\n%s", usage)
	}
	conn, err := openChannel(server)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx := context.Background()
	lobby := dudov1.NewLobbyClient(conn)
	var token string
	var seat uint32
	if held := os.Getenv("DUDO_TOKEN"); held != "" {
		// A seat already taken for us (`dudo ladder --bot`, `dudo tournament enter --bot`):
		// DUDO_TABLE is the table's id, and we must not join.
		n, err := strconv.ParseUint(os.Getenv("DUDO_SEAT"), 10, 32)
		if err != nil && os.Getenv("DUDO_SEAT") != "" {
			return fmt.Errorf("DUDO_SEAT: %v", err)
		}
		token, seat = held, uint32(n)
		var info *dudov1.TableInfo
		err = unary(ctx, "GetTable", func(ctx context.Context, trailer grpc.CallOption) (err error) {
			info, err = lobby.GetTable(ctx, &dudov1.TableRef{Table: table}, trailer)
			return err
		})
		if err == nil {
			table = info.GetId() // a join code given: the id the Play stream wants
		}
	} else {
		// As an account (`dudo account register NAME --bot` prints its API token), the seat
		// is the account's, under the account's name; otherwise a guest's, under NAME.
		ctx, request := ctx, &dudov1.JoinTableRequest{Table: table, Name: name}
		if api := os.Getenv("DUDO_API_TOKEN"); api != "" {
			ctx, request.Name = withBearer(ctx, api), ""
		}
		var joined *dudov1.Joined
		err = unary(ctx, "JoinTable", func(ctx context.Context, trailer grpc.CallOption) (err error) {
			joined, err = lobby.JoinTable(ctx, request, trailer)
			return err
		})
		if err != nil {
			return err
		}
		token, seat, table = joined.GetToken(), joined.GetSeat(), joined.GetTable().GetId()
	}
	_, err = playSeat(ctx, conn, table, token, seat, name)
	return err
}

// accountName is the name of the account whose API token this is (for what we print).
func accountName(conn *grpc.ClientConn, api string) string {
	var account *dudov1.Account
	err := unary(withBearer(context.Background(), api), "WhoAmI", func(ctx context.Context, trailer grpc.CallOption) (err error) {
		account, err = dudov1.NewAccountsClient(conn).WhoAmI(ctx, &dudov1.WhoAmIRequest{}, trailer)
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dudobot:", err)
		return "dudobot"
	}
	return account.GetName()
}
