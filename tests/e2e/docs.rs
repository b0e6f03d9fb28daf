//! The docs hold to the server: docs/protocol.md's refusal codes are the server's one table of
//! them (`status::CODES`), both ways; the services reflection describes and the names health
//! answers for are the ones docs/deploy.md names; and every metric `/metrics` exports is in
//! deploy.md's table (the scrape is `server::prometheus_metrics_on_their_own_port`'s).

use std::collections::BTreeSet;

use tokio_stream::StreamExt;
use tonic_reflection::pb::v1 as reflection;

fn protocol_md() -> String {
    std::fs::read_to_string(dudo_tests::root().join("docs/protocol.md")).unwrap()
}

fn deploy_md() -> String {
    std::fs::read_to_string(dudo_tests::root().join("docs/deploy.md")).unwrap()
}

/// The text of `doc` from the heading `from` to the next heading of its level or above.
fn section<'a>(doc: &'a str, from: &str) -> &'a str {
    let start = doc.find(from).unwrap_or_else(|| panic!("no {from:?} in the doc"));
    let level = from.chars().take_while(|&c| c == '#').count();
    let rest = &doc[start + from.len()..];
    let end = rest
        .match_indices("\n#")
        .find(|(i, _)| rest[i + 1..].chars().take_while(|&c| c == '#').count() <= level)
        .map_or(rest.len(), |(i, _)| i);
    &rest[..end]
}

/// What is in backticks in the first cell of each row of the tables in `text`.
fn first_cells(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cell = line.split('|').nth(1).unwrap_or_default();
        names.extend(cell.split('`').skip(1).step_by(2).map(str::to_string));
    }
    names
}

#[test]
fn the_refusal_codes_section_lists_every_code_the_server_sends() {
    let doc = protocol_md();
    let listed = first_cells(section(&doc, "### Refusal codes"));
    let table: BTreeSet<String> = dudo_server::status::CODES.iter().map(|c| c.to_string()).collect();
    let missing: Vec<&String> = table.difference(&listed).collect();
    let stale: Vec<&String> = listed.difference(&table).collect();
    assert!(missing.is_empty(), "sent by the server, not in protocol.md's Refusal codes: {missing:?}");
    assert!(stale.is_empty(), "in protocol.md's Refusal codes, never sent: {stale:?}");
}

/// The metrics deploy.md's table names (`dudo_rejections_total{reason}` as
/// `dudo_rejections_total`).
pub(crate) fn documented_metrics() -> BTreeSet<String> {
    let doc = deploy_md();
    first_cells(section(&doc, "### Metrics"))
        .into_iter()
        .map(|m| m.split('{').next().unwrap_or_default().to_string())
        .collect()
}

/// The `dudo_` metrics a Prometheus scrape holds, by name (a histogram's `_bucket`, `_sum`
/// and `_count` lines under its own name).
pub(crate) fn exported_metrics(scrape: &str) -> BTreeSet<String> {
    scrape
        .lines()
        .filter(|l| l.starts_with("dudo_"))
        .map(|l| {
            let name = l.split(['{', ' ']).next().unwrap_or_default();
            ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| name.strip_suffix(s))
                .unwrap_or(name)
                .to_string()
        })
        .collect()
}

/// Every metric the table documents is one the server's sources record.
#[test]
fn every_documented_metric_is_one_the_server_records() {
    let mut sources = String::new();
    let mut dirs = vec![dudo_tests::root().join("server/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                sources.push_str(&std::fs::read_to_string(path).unwrap());
            }
        }
    }
    let documented = documented_metrics();
    assert!(documented.len() >= 20, "{documented:?}");
    for metric in documented {
        assert!(sources.contains(&format!("\"{metric}\"")), "{metric} is documented but never recorded");
    }
}

/// The services reflection describes are the ones the docs name, and each name the docs give
/// for health answers SERVING.
#[tokio::test]
async fn reflection_and_health_answer_for_what_the_docs_name() {
    let doc = deploy_md();
    let offers = section(&doc, "### What else is on the port");
    let health_line = offers.split("- **gRPC health**").nth(1).unwrap();
    let health_line = &health_line[..health_line.find("\n- ").unwrap()];
    // The names it reports for: `""` (the whole server) and the services.
    let health_names: Vec<String> = health_line
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|n| *n == "\"\"" || n.starts_with("dudo.v1."))
        .map(|n| n.trim_matches('"').to_string())
        .collect();
    assert!(health_names.contains(&String::new()), "{health_line}");
    let documented: BTreeSet<String> =
        health_names.iter().filter(|n| n.starts_with("dudo.v1.")).cloned().collect();
    // "Each describes the six `dudo.v1` services": the number in words is the count.
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    let said = words.iter().position(|w| offers.contains(&format!("describes the {w} `dudo.v1` services")));
    assert_eq!(said, Some(documented.len()), "the number of services said in words: {offers}");

    let channel = tonic::transport::Channel::from_shared(format!("http://{}", crate::serve().await))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = reflection::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let ask = reflection::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(reflection::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut answers = client.server_reflection_info(tokio_stream::iter([ask])).await.unwrap().into_inner();
    let answer = answers.next().await.unwrap().unwrap();
    let Some(reflection::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        answer.message_response
    else {
        panic!("{answer:?}")
    };
    let served: BTreeSet<String> = list.service.into_iter().map(|s| s.name).collect();
    let served_dudo: BTreeSet<String> =
        served.iter().filter(|n| n.starts_with("dudo.v1.")).cloned().collect();
    assert_eq!(served_dudo, documented, "reflection serves {served:?}");
    assert!(served.contains("grpc.health.v1.Health"), "{served:?}");
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    for name in &health_names {
        let answer = health.check(tonic_health::pb::HealthCheckRequest { service: name.clone() }).await;
        let status = answer.unwrap_or_else(|e| panic!("health of {name:?}: {e}")).into_inner().status;
        assert_eq!(
            status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32,
            "{name:?}"
        );
    }
}

/// A reflection stream whose client asks many questions and goes away without reading the
/// answers costs the server nothing more: no task of its panics (tonic-reflection before
/// 0.14.9 did, once for each such stream, anyone able to repeat it at will).
#[tokio::test]
async fn a_reflection_stream_abandoned_with_answers_unread_panics_nothing() {
    use std::io::BufRead;
    let log = std::env::temp_dir().join(format!("dudo-reflection-{}.log", std::process::id()));
    let mut child = std::process::Command::new(dudo_tests::binary("dudo-server"))
        .args(["--listen", "127.0.0.1:0", "--db", "none"])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let addr =
        line.split_whitespace().find(|w| w.contains("127.0.0.1:")).unwrap().trim_start_matches("http://");
    let addr = addr.trim_end_matches(|c: char| !c.is_ascii_digit()).to_string();
    for _ in 0..3 {
        let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut client = reflection::server_reflection_client::ServerReflectionClient::new(channel);
        let ask = |_| reflection::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(
                reflection::server_reflection_request::MessageRequest::FileContainingSymbol(
                    "dudo.v1.Lobby".into(),
                ),
            ),
        };
        let answers = client.server_reflection_info(tokio_stream::iter((0..20).map(ask))).await.unwrap();
        drop(answers);
        drop(client);
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let _ = child.kill();
    let _ = child.wait();
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    assert!(!logged.contains("panicked"), "{logged}");
}
