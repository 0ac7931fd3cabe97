//! `q7 debug --dap`: the Debug Adapter Protocol on stdin/stdout
//! (`q7_debug::dap`); this module only loads the op the `launch` request
//! names, as `q7 run` would from its flags.

use std::io::BufReader;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Result;
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use serde_json::Value;

use q7_debug::dap::{self, Out};
use q7_debug::Session;

/// `q7 run`'s flags, parsed from a launch request's arguments.
#[derive(Debug, clap::Parser)]
#[command(name = "launch")]
struct LaunchArgv {
    #[command(flatten)]
    run: super::super::session::Args,
}

/// The `q7 run` argv a launch request's arguments stand for (see
/// docs/DEBUGGING.md for the keys).
fn launch_argv(args: &Value) -> Result<Vec<String>, String> {
    let text = |key: &str| args[key].as_str().map(String::from);
    let mut argv = vec!["launch".to_string()];
    argv.push(text("program").ok_or("launch needs \"program\": the build directory or image")?);
    argv.push("--fn".into());
    argv.push(text("fn").ok_or("launch needs \"fn\": the function to run")?);
    for input in args["in"].as_array().into_iter().flatten() {
        argv.push("--in".into());
        argv.push(input.as_str().ok_or("\"in\" lists .npy paths (strings)")?.into());
    }
    for number in args["args"].as_array().into_iter().flatten() {
        argv.push("--arg".into());
        argv.push(match number {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return Err("\"args\" lists numbers".into()),
        });
    }
    if let Some(shape) = args["dstShape"].as_array() {
        let dims: Option<Vec<String>> = shape.iter().map(|d| d.as_u64().map(|d| d.to_string())).collect();
        argv.push("--dst-shape".into());
        argv.push(dims.ok_or("\"dstShape\" lists dimensions")?.join(","));
    }
    if let Some(dtype) = text("dstDtype") {
        argv.extend(["--dst-dtype".into(), dtype]);
    }
    for flag in args["runArgs"].as_array().into_iter().flatten() {
        argv.push(flag.as_str().ok_or("\"runArgs\" lists `q7 run` flags (strings)")?.into());
    }
    Ok(argv)
}

/// Parses a launch request's arguments as `q7 run` would its flags.
fn parse_launch(args: &Value) -> Result<(super::super::session::Args, ArgMatches), String> {
    let argv = launch_argv(args)?;
    let matches = LaunchArgv::command().try_get_matches_from(&argv).map_err(|e| e.to_string())?;
    let parsed = LaunchArgv::from_arg_matches(&matches).map_err(|e| e.to_string())?;
    Ok((parsed.run, matches))
}

/// Serves one debug session: `initialize`, `launch` (its arguments, or the
/// command line's when it gave the op's), then the session's requests.
pub fn serve(
    cli: Option<&super::super::session::Args>,
    matches: Option<&ArgMatches>,
    break_on_finding: bool,
) -> Result<()> {
    let pause = Arc::new(AtomicBool::new(false));
    let requests = dap::spawn_reader(BufReader::new(std::io::stdin()), pause.clone());
    let mut out = Out::new(std::io::stdout().lock());
    let accept = |request: &Value| {
        if request["command"] != "launch" {
            return Err("q7 debug --dap launches the op (attach is for Python's q7.debug(dap=PORT))".to_string());
        }
        let args = &request["arguments"];
        if let Some(cwd) = args["cwd"].as_str() {
            std::env::set_current_dir(cwd).map_err(|e| format!("{cwd}: {e}"))?;
        }
        match cli {
            Some(run) if args.get("program").is_none() => Ok((run.clone(), matches.cloned())),
            _ => parse_launch(args).map(|(run, m)| (run, Some(m))),
        }
    };
    let Some((launch, options, (mut run_args, launch_matches))) =
        dap::handshake(&requests, &mut out, break_on_finding, accept)?
    else {
        return Ok(());
    };
    run_args.json = true; // console output is captured: stdout carries the protocol
    let flag = pause.clone();
    let interrupt = q7_sim::interrupt::Interrupt::new(move || flag.load(Ordering::SeqCst));
    let mut started = false;
    let loaded =
        super::super::session::with_prepared(&run_args, launch_matches.as_ref(), Some(interrupt), |_, _, _, op| {
            started = true;
            let session = Session::new(op.into_debug(), options.break_on_finding);
            Ok(dap::serve_session(&launch, session, options, pause.clone(), &requests, &mut out)?)
        });
    match loaded {
        // The op did not load: the client is told why, and the session ends.
        Err(e) if !started => {
            out.respond(&launch, Err(format!("{e:#}")))?;
            Ok(out.event("terminated", Value::Null)?)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_launch_becomes_q7_run_flags() {
        let args = json!({"program": "/b", "fn": "f", "in": ["x.npy", "y.npy"], "args": [3, 0.5],
                          "dstShape": [4, 5], "runArgs": ["--engine", "interp"]});
        let argv = launch_argv(&args).unwrap().join(" ");
        assert_eq!(argv, "launch /b --fn f --in x.npy --in y.npy --arg 3 --arg 0.5 --dst-shape 4,5 --engine interp");
        assert!(parse_launch(&args).is_ok());
        assert!(launch_argv(&json!({"fn": "f"})).unwrap_err().contains("\"program\""));
        assert!(parse_launch(&json!({"program": "/b", "fn": "f", "runArgs": ["--bogus"]})).is_err());
    }
}
