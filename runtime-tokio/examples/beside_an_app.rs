//! contact-extract mounted inside an existing tokio application: the application keeps its own
//! listener (here a tiny plain-TCP "hello" service on 127.0.0.1:8081), and the paid service
//! runs beside it on 127.0.0.1:8080 on the same runtime. Ctrl-C drains the service (paid jobs
//! finish, settlement included), then the application stops.
//!
//! Run: `PUBLIC_BASE_URL=http://127.0.0.1:8080 PAY_TO=0x… FACILITATOR_URL=https://… \
//!       cargo run -p contact-runtime-tokio --example beside_an_app`

use std::collections::BTreeMap;

use contact_core::config::Config;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // The service's settings, from the environment as the binary reads them.
    let vars: BTreeMap<String, String> = std::env::vars().collect();
    let config = match Config::from_env_map(&vars) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("invalid configuration: {error}");
            std::process::exit(2);
        }
    };
    let (service, shutdown) =
        contact_runtime_tokio::serve(TcpListener::bind("127.0.0.1:8080").await?, config);
    let service = tokio::spawn(service);

    // The application's own listener, unaffected by the service.
    let app = TcpListener::bind("127.0.0.1:8081").await?;
    let app = tokio::spawn(async move {
        while let Ok((mut stream, _)) = app.accept().await {
            let _ = stream
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n",
                )
                .await;
        }
    });

    tokio::signal::ctrl_c().await?;
    shutdown.shutdown();
    let _ = service.await;
    app.abort();
    Ok(())
}
