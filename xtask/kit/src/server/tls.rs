//! `--tls`: a test CA and a server certificate for 127.0.0.1 and localhost signed by it, made
//! once with the JDK's `keytool` into `target/gremlin-server3/tls/`; a Gremlin Server (4.0 or 3.x)
//! presents them (Netty's TLS in Gremlin Server, `ssl.keyStore`) and clients trust
//! `tls/ca.pem` ([`tls_root`]).

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{ensure, Context, Result};

use crate::util::on_path;

/// The password of the key stores (a test CA's, never a secret).
pub const TLS_PASSWORD: &str = "changeit";

/// The test CA's certificate (PEM) that `--tls` servers' certificates are signed by, made
/// (with the server's PKCS#12 key store beside it) on first use.
pub fn tls_root() -> Result<PathBuf> {
    Ok(tls_files()?.0)
}

/// `(ca.pem, server.p12)` in `target/gremlin-server3/tls/`, made with `keytool` if missing:
/// a CA key pair (basic constraints CA), a server key pair whose certificate the CA signs for
/// IP 127.0.0.1 and DNS localhost (server auth), and both certificates imported into the
/// server's key store so it presents the chain.
pub(super) fn tls_files() -> Result<(PathBuf, PathBuf)> {
    let state = super::state_dir(super::STATE_3)?;
    let dir = state.join("tls");
    let (ca_pem, store) = (dir.join("ca.pem"), dir.join("server.p12"));
    if ca_pem.exists() && store.exists() {
        return Ok((ca_pem, store));
    }
    ensure!(
        on_path("keytool"),
        "--tls needs `keytool` (it comes with the JDK) on PATH"
    );
    let _ = fs::remove_dir_all(&dir);
    let tmp = state.join(format!("tls-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp)?;
    let p = |f: &str| tmp.join(f).display().to_string();
    let (ca_p12, ca_pem_tmp, server_p12, csr, server_pem) = (
        p("ca.p12"),
        p("ca.pem"),
        p("server.p12"),
        p("server.csr"),
        p("server.pem"),
    );
    let pass = TLS_PASSWORD;
    let common = ["-storepass", pass, "-storetype", "PKCS12"];
    let key_pair = [
        "-genkeypair",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "3650",
    ];
    let ca_key: Vec<&str> = [
        &key_pair[..],
        &["-alias", "ca", "-dname", "CN=graphbinary-rs test CA"],
    ]
    .concat();
    let server_key: Vec<&str> = [
        &key_pair[..],
        &["-alias", "server", "-dname", "CN=localhost"],
    ]
    .concat();
    let steps: [&[&str]; 7] = [
        &[&ca_key[..], &["-ext", "bc:c", "-keystore", &ca_p12]].concat(),
        &[
            "-exportcert",
            "-rfc",
            "-alias",
            "ca",
            "-keystore",
            &ca_p12,
            "-file",
            &ca_pem_tmp,
        ],
        &[&server_key[..], &["-keystore", &server_p12]].concat(),
        &[
            "-certreq",
            "-alias",
            "server",
            "-keystore",
            &server_p12,
            "-file",
            &csr,
        ],
        &[
            "-gencert",
            "-alias",
            "ca",
            "-keystore",
            &ca_p12,
            "-infile",
            &csr,
            "-outfile",
            &server_pem,
            "-rfc",
            "-validity",
            "3650",
            "-ext",
            "SAN=ip:127.0.0.1,dns:localhost",
            "-ext",
            "ku:c=digitalSignature,keyEncipherment",
            "-ext",
            "eku=serverAuth",
        ],
        &[
            "-importcert",
            "-noprompt",
            "-alias",
            "ca",
            "-keystore",
            &server_p12,
            "-file",
            &ca_pem_tmp,
        ],
        &[
            "-importcert",
            "-noprompt",
            "-alias",
            "server",
            "-keystore",
            &server_p12,
            "-file",
            &server_pem,
        ],
    ];
    for args in steps {
        let out = Command::new("keytool")
            .args(args)
            .args(common)
            .stdin(Stdio::null())
            .output()
            .context("running keytool")?;
        ensure!(
            out.status.success(),
            "keytool {}: {}{}",
            args[0],
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    fs::rename(&tmp, &dir)?;
    Ok((ca_pem, store))
}
