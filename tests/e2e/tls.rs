//! TLS: a `dudo-server` started with `--tls-cert`/`--tls-key` is played through `https://`
//! by the `dudo` command, the client library, the SDK and the Python example, each trusting
//! a CA of the test's own; a client that trusts another CA, one that speaks plaintext and one
//! that stalls its handshake are turned away while the others play on; a renewed certificate
//! is served to new connections, and a broken renewal keeps the one that works.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dudo_client::{Client, Tls};
use dudo_tests::{binary, python, root, start_server};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A CA of the test's own and a certificate it signed for `localhost` and 127.0.0.1, as PEM
/// files: the CA's certificate at `ca`, the server's at `cert`, its key at `key`.
struct Pki {
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

impl Pki {
    /// A new CA and server certificate; the server's files at `cert` and `key` (replacing
    /// what is there, as a renewal does).
    fn issue(ca: PathBuf, cert: PathBuf, key: PathBuf) -> Pki {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, "dudo test CA");
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        let server_key = KeyPair::generate().unwrap();
        let server = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap()
            .signed_by(&server_key, &issuer)
            .unwrap();
        std::fs::write(&ca, issuer.pem()).unwrap();
        std::fs::write(&cert, server.pem()).unwrap();
        std::fs::write(&key, server_key.serialize_pem()).unwrap();
        Pki { ca, cert, key }
    }

    /// A CA and certificate in `dir`, named after `name`.
    fn new(dir: &Path, name: &str) -> Pki {
        Pki::issue(
            dir.join(format!("{name}-ca.pem")),
            dir.join(format!("{name}-cert.pem")),
            dir.join(format!("{name}-key.pem")),
        )
    }

    fn trusted(&self) -> Tls {
        Tls { ca_cert: Some(self.ca.clone()) }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dudo-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_tls_is_played_through_https_by_the_cli_the_sdk_and_python() {
    let dir = scratch("play");
    let pki = Pki::new(&dir, "dudo");
    let cert = pki.cert.display().to_string();
    let key = pki.key.display().to_string();
    let mut server = start_server(&binary("dudo-server"), &["--tls-cert", &cert, "--tls-key", &key]).unwrap();
    let mut said = String::new();
    std::io::BufRead::read_line(&mut server.stdout, &mut said).unwrap();
    assert!(said.contains("TLS"), "the banner says the port speaks TLS: {said}");
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    let url = format!("https://localhost:{port}");

    // The command line, trusting the test's CA through DUDO_CA_CERT.
    let dudo = |server: &str, args: &[&str]| {
        let out = Command::new(binary("dudo"))
            .args(args)
            .args(["--server", server])
            .env("DUDO_HOME", &dir)
            .env("DUDO_CA_CERT", &pki.ca)
            .output()
            .unwrap();
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    };
    let (ok, out) = dudo(&url, &["create", "--detach", "--seats", "3", "--name", "Ana"]);
    assert!(ok, "{out}");
    let code = out.lines().find_map(|l| l.strip_prefix("Join code: ")).unwrap().trim().to_string();
    assert!(out.contains("https://"), "the table's link is an https:// one: {out}");
    let (ok, out) = dudo(&url, &["list"]);
    assert!(ok && out.contains(&code), "{out}");

    // The client library and the SDK (the host's seat), and the Python example in another seat.
    let client = Client::connect_with(&url, &pki.trusted()).await.unwrap();
    match python() {
        Ok(program) => {
            let script = root().join("bot-sdk/examples/python/bot.py");
            let out = crate::bots::game_on(&url, &client, |addr, code| {
                Command::new(&program)
                    .arg(&script)
                    .args([addr, code, "Pyro"])
                    .env("DUDO_CA_CERT", &pki.ca)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .await;
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
            assert!(stdout.contains("Pyro: game over, place"), "{stdout}");
        }
        Err(why) => {
            dudo_tests::skipped("tls::…_python (the Python seat; the SDK's still played)", &why);
            // The SDK's own example bot takes the seat instead.
            let out = crate::bots::game_on(&url, &client, |addr, code| {
                Command::new(dudo_tests::example("minimal"))
                    .args([addr, code])
                    .env("DUDO_CA_CERT", &pki.ca)
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .await;
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
    }

    // A client that trusts another CA is refused at the handshake, and says why.
    let other = Pki::new(&dir, "other");
    let refused = Client::connect_with(&url, &other.trusted()).await.map(|_| ()).unwrap_err();
    assert!(
        format!("{refused:?}").to_lowercase().contains("certificate"),
        "a certificate the client does not trust: {refused:?}"
    );
    let (ok, out) = dudo(&url.replace("localhost", "127.0.0.1"), &["list"]);
    assert!(ok, "the certificate names 127.0.0.1 too: {out}");
    let (ok, out) = dudo(&url, &["list"]);
    assert!(ok, "{out}");
    // The CLI names what is wrong: a CA that did not sign the server's certificate, or
    // plaintext at a port that speaks TLS.
    let wrong_ca = Command::new(binary("dudo"))
        .args(["list", "--server", &url])
        .env("DUDO_HOME", &dir)
        .env("DUDO_CA_CERT", &other.ca)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&wrong_ca.stderr);
    assert!(said.contains("DUDO_CA_CERT names did not sign"), "{said}");
    let (ok, out) = dudo(&format!("127.0.0.1:{port}"), &["list"]);
    assert!(!ok && out.contains("https://HOST:PORT"), "{out}");

    // A table's https link is enough to find the table and the server, over TLS.
    let ip_url = url.replace("localhost", "127.0.0.1");
    let (ok, out) = dudo(&ip_url, &["create", "--detach", "--seats", "2", "--name", "Bo"]);
    assert!(ok, "{out}");
    let link = out.split_whitespace().find(|w| w.starts_with("https://") && w.contains("/t/")).unwrap();
    let by_link = Command::new(binary("dudo"))
        .args(["host", "--table", link, "who"])
        .env("DUDO_HOME", &dir)
        .env("DUDO_CA_CERT", &pki.ca)
        .env_remove("DUDO_SERVER")
        .output()
        .unwrap();
    let said =
        format!("{}{}", String::from_utf8_lossy(&by_link.stdout), String::from_utf8_lossy(&by_link.stderr));
    assert!(by_link.status.success() && said.contains("Bo"), "{said}");

    // A browser (or curl) given http:// at the TLS port is told to use https://.
    let mut plain = tokio::net::TcpStream::connect(format!("127.0.0.1:{port}")).await.unwrap();
    plain.write_all(b"GET / HTTP/1.1\r\nhost: localhost\r\n\r\n").await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), plain.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 400") && answer.contains("use https://"), "{answer}");

    // Plaintext on the TLS port gets nowhere (and takes nothing from the others).
    let plain = async { Client::connect(&format!("127.0.0.1:{port}")).await?.list(10).await };
    assert!(tokio::time::timeout(Duration::from_secs(15), plain).await.unwrap().is_err());

    // A handshake begun and never finished is closed within the opening's time.
    let mut stalled = tokio::net::TcpStream::connect(format!("127.0.0.1:{port}")).await.unwrap();
    stalled.write_all(&[0x16, 0x03, 0x01, 0x00]).await.unwrap();
    let began = Instant::now();
    let mut byte = [0u8; 1];
    let closed = tokio::time::timeout(Duration::from_secs(15), stalled.read(&mut byte)).await;
    assert!(matches!(closed, Ok(Ok(0) | Err(_))), "{closed:?}");
    let waited = began.elapsed();
    assert!(waited <= dudo_server::connections::OPENING_TIME + Duration::from_secs(3), "{waited:?}");

    // And the server played on through all of it.
    assert!(client.list(10).await.is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_renewed_certificate_is_served_to_new_connections_and_a_broken_one_is_not() {
    let dir = scratch("renew");
    let (cert, key) = (dir.join("server.pem"), dir.join("server-key.pem"));
    let first = Pki::issue(dir.join("first-ca.pem"), cert.clone(), key.clone());
    let tls = dudo_server::tls::ServerTls::load(&cert, &key).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://localhost:{}", listener.local_addr().unwrap().port());
    let setup = dudo_server::Setup { tls: Some(tls.clone()), ..dudo_server::Setup::default() };
    // Programs play its tables: after a showdown they go on at once.
    let mut setup = setup;
    setup.limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    let lists = |trust: Tls| {
        let url = url.clone();
        async move { Client::connect_with(&url, &trust).await?.list(10).await.map(|_| ()) }
    };
    lists(first.trusted()).await.unwrap();
    assert!(!tls.reload_if_changed(), "nothing changed: nothing is read again");

    // Renewed in place (a new CA too, so which one is served shows).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = Pki::issue(dir.join("second-ca.pem"), cert.clone(), key.clone());
    assert!(tls.reload_if_changed());
    lists(second.trusted()).await.unwrap();
    assert!(lists(first.trusted()).await.is_err(), "the old certificate is no longer served");

    // A renewal that left a broken file keeps the certificate that works.
    tokio::time::sleep(Duration::from_millis(50)).await;
    std::fs::write(&cert, "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n").unwrap();
    assert!(!tls.reload_if_changed());
    lists(second.trusted()).await.unwrap();

    // Files that cannot serve are refused at start, naming the flag at fault.
    let other = Pki::new(&dir, "other");
    let mismatched = dudo_server::tls::ServerTls::load(&other.cert, &first.key).map(|_| ()).unwrap_err();
    assert!(mismatched.to_string().contains("do not go together"), "{mismatched}");
    let empty = dir.join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let none = dudo_server::tls::ServerTls::load(&empty, &other.key).map(|_| ()).unwrap_err();
    assert!(none.to_string().contains("--tls-cert") && none.to_string().contains("no certificate"), "{none}");
    let out = Command::new(binary("dudo-server"))
        .args(["--db", "none", "--listen", "127.0.0.1:0", "--tls-cert"])
        .arg(&other.cert)
        .arg("--tls-key")
        .arg(&empty)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && said.contains("--tls-key"), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}
