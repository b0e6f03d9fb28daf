// The connection and the errors: a channel to the server (plaintext, or TLS for an
// https:// address), the bearer token on a call, and the `dudo-code` a refusal carries.
//
// The server sends `dudo-code` (a stable, machine-readable reason such as `table_closed` or
// `ladder_moving`) in the trailers of a failed call. On a unary call ask for them with the
// grpc.Trailer(&md) call option; on a stream, read stream.Trailer() once Recv has failed.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// openChannel connects to host:port in plaintext, or to https://host:port with TLS,
// checked against the system's roots or the CA certificate that DUDO_CA_CERT names (as the
// dudo command does). The connection is made lazily, on the first call.
func openChannel(server string) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		// HTTP/2 pings notice a connection that vanished (a closed laptop) within a minute.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}),
	}
	if strings.HasPrefix(server, "https://") {
		config := &tls.Config{MinVersion: tls.VersionTLS12} // RootCAs nil: the system's roots
		if ca := os.Getenv("DUDO_CA_CERT"); ca != "" {
			pem, err := os.ReadFile(ca)
			if err != nil {
				return nil, fmt.Errorf("DUDO_CA_CERT: %w", err)
			}
			config.RootCAs = x509.NewCertPool()
			if !config.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("DUDO_CA_CERT: no PEM certificate in %s", ca)
			}
		}
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(config)))
		server = strings.TrimPrefix(server, "https://")
	} else {
		// grpc-go 1.33 (Debian's) has no credentials/insecure package; WithInsecure is the
		// same thing there and in later versions.
		opts = append(opts, grpc.WithInsecure())
		server = strings.TrimPrefix(server, "http://")
	}
	return grpc.Dial(strings.TrimSuffix(server, "/"), opts...)
}

// withBearer is ctx carrying `authorization: Bearer TOKEN`: a seat's token, or an
// account's API token (dudo_…).
func withBearer(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// dudoCode is the `dudo-code` of a failed call's trailers ("" if none).
func dudoCode(md metadata.MD) string {
	if v := md.Get("dudo-code"); len(v) > 0 {
		return v[0]
	}
	return ""
}

// callError is a failed call: its gRPC status and its dudo-code.
type callError struct {
	what string
	st   *status.Status
	code string
}

func (e *callError) Error() string {
	if e.code != "" {
		return fmt.Sprintf("%s: %s (%s): %s", e.what, e.st.Code(), e.code, e.st.Message())
	}
	return fmt.Sprintf("%s: %s: %s", e.what, e.st.Code(), e.st.Message())
}

// failed wraps err, a call's error, with the dudo-code of its trailers.
func failed(what string, err error, trailer metadata.MD) *callError {
	return &callError{what: what, st: status.Convert(err), code: dudoCode(trailer)}
}

// dropped says whether a stream ended by a lost connection or a server going away rather
// than a refusal: open it again (a table or the ladder may have moved to another node of a
// cluster: `table_moved`, `ladder_moving`).
func dropped(err error) bool {
	var ce *callError
	if errors.As(err, &ce) {
		if ce.code == "ladder_moving" || ce.code == "tournaments_moving" || ce.code == "table_moved" {
			return true
		}
		err = ce.st.Err()
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.Unknown, codes.Internal, codes.Canceled, codes.DeadlineExceeded:
		return true
	}
	return false
}

// unary runs a unary call with a deadline and returns its error with the dudo-code.
func unary(ctx context.Context, what string, call func(ctx context.Context, trailer grpc.CallOption) error) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var md metadata.MD
	if err := call(ctx, grpc.Trailer(&md)); err != nil {
		return failed(what, err, md)
	}
	return nil
}
