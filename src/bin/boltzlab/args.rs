//! Command-line arguments: `--name value` options and `--flag` switches, each checked
//! against what a command accepts, with errors that name the option and its range; and the
//! `--save FILE` every learner takes, checked before it trains.

use boltzlab::error::{ParamError, shorten};
use std::collections::BTreeMap;
use std::path::Path;

/// Parsed `--name value` and `--flag` arguments, checked against what a command accepts.
pub struct Args {
    values: BTreeMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    pub fn parse(raw: &[String], valued: &[&str], switches: &[&str]) -> Result<Args, String> {
        let mut values = BTreeMap::new();
        let mut flags = Vec::new();
        let mut iter = raw.iter();
        while let Some(arg) = iter.next() {
            let name = arg.strip_prefix("--").ok_or_else(|| {
                format!(
                    "unexpected argument '{}' (options start with --)",
                    shorten(arg)
                )
            })?;
            if switches.contains(&name) {
                flags.push(name.to_string());
            } else if valued.contains(&name) {
                let value = iter
                    .next()
                    .ok_or_else(|| format!("--{name} needs a value"))?;
                if values.insert(name.to_string(), value.clone()).is_some() {
                    return Err(format!("--{name} is given twice"));
                }
            } else {
                return Err(format!("unknown option --{}", shorten(name)));
            }
        }
        Ok(Args { values, flags })
    }

    /// Whether the option `--name value` was given.
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// A text option (a file name, say) as given, or `None` if absent.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    /// A number option as the engine should see it: `None` if absent; a text that is not
    /// a number reads as NaN, which the engine's check refuses with the allowed range
    /// (see [`Args::refused`]).
    pub fn number(&self, name: &str) -> Option<f64> {
        self.values
            .get(name)
            .map(|v| v.parse::<f64>().unwrap_or(f64::NAN))
    }

    pub fn required(&self, name: &str) -> Result<f64, String> {
        self.number(name)
            .ok_or_else(|| format!("--{name} is required"))
    }

    /// The engine's refusal `err` of the value given to `--name`, named by the option and
    /// the text given.
    pub fn refused(&self, name: &str, err: impl std::fmt::Display) -> String {
        match self.values.get(name) {
            Some(v) => format!("--{name} '{}': {err}", shorten(v)),
            None => format!("--{name}: {err}"),
        }
    }

    /// The engine's refusal `err`, named by the option it came from: `options` maps the
    /// engine's field names to option names.
    pub fn engine_error(&self, err: ParamError, options: &[(&str, &str)]) -> String {
        match options.iter().find(|(field, _)| *field == err.field()) {
            Some((_, option)) => self.refused(option, err),
            None => err.to_string(),
        }
    }

    /// A whole-number option in [min, max], or `default`.
    pub fn count(&self, name: &str, default: u64, min: u64, max: u64) -> Result<u64, String> {
        match self.values.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    format!(
                        "--{name} must be a whole number from {min} to {max}, got '{}'",
                        shorten(v)
                    )
                }),
        }
    }

    /// Checks, before any training, that `--save FILE` (if given) can be written: FILE is not
    /// a directory, its directory exists, and it can be opened for writing. A file that did
    /// not exist is created and removed again, so a run that fails later leaves nothing.
    pub fn check_save(&self) -> Result<(), String> {
        let Some(file) = self.text("save") else {
            return Ok(());
        };
        let path = Path::new(file);
        let refuse = |why: String| Err(self.refused("save", why));
        if file.is_empty() || path.is_dir() {
            let what = if file.is_empty() {
                "names no file"
            } else {
                "is a directory"
            };
            return refuse(format!(
                "{what}; --save takes the name of a file to write, in a directory that exists"
            ));
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            let why = match parent.exists() {
                true => "is not a directory",
                false => "does not exist",
            };
            return refuse(format!(
                "'{}' {why}; --save takes the name of a file to write, in a directory that exists",
                shorten(&parent.display().to_string())
            ));
        }
        // symlink_metadata: a dangling link counts as there (opening it would create its
        // target, which removing the link would leave behind).
        let existed = path.symlink_metadata().is_ok();
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .create_new(!existed)
            .open(path);
        match opened {
            Ok(_) if !existed => std::fs::remove_file(path)
                .map_err(|e| self.refused("save", format!("cannot remove the test file: {e}"))),
            Ok(_) => Ok(()),
            Err(e) => refuse(format!("cannot be written: {e}")),
        }
    }

    /// Writes `text` to the `--save` file, if given (checked before training by
    /// [`Args::check_save`]); a write that fails part-way removes the part written.
    pub fn write_save(&self, text: &str) -> Result<(), String> {
        use std::io::Write;
        let Some(file) = self.text("save") else {
            return Ok(());
        };
        let refuse = |e: std::io::Error| self.refused("save", format!("cannot be written: {e}"));
        let mut out = std::fs::File::create(file).map_err(refuse)?;
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.sync_all()) {
            drop(out);
            std::fs::remove_file(file).ok();
            return Err(refuse(e));
        }
        Ok(())
    }

    /// An option that takes one of `allowed` (the first is the default).
    pub fn choice(&self, name: &str, allowed: &[&str]) -> Result<String, String> {
        match self.values.get(name) {
            None => Ok(allowed[0].to_string()),
            Some(v) if allowed.contains(&v.as_str()) => Ok(v.clone()),
            Some(v) => Err(format!(
                "--{name} must be one of {}, got '{}'",
                allowed.join(", "),
                shorten(v)
            )),
        }
    }
}

/// The engine's field names, each with the option it came from.
pub type OptionNames = Vec<(&'static str, &'static str)>;

/// The lattice `ising` and `exact` both take: --size (and --height), --coupling, --field
/// and --boundary, with the required --temperature. Returns the lattice, T, and the map
/// from the engine's field names to these options (with `more` pairs appended) for naming
/// later refusals; a refusal here already names its option.
pub fn lattice_options(
    args: &Args,
    more: &[(&'static str, &'static str)],
) -> Result<(boltzlab::Lattice, f64, OptionNames), String> {
    let size = args.required("size")?;
    let height = args.number("height").unwrap_or(size);
    let temperature = args.required("temperature")?;
    let field = args.number("field").unwrap_or(0.0);
    let coupling = args.number("coupling").unwrap_or(1.0);
    // The engine's field names → the options they came from.
    let mut options = vec![
        ("width", "size"),
        ("height", if args.has("height") { "height" } else { "size" }),
        ("coupling", "coupling"),
        ("field", "field"),
        ("temperature", "temperature"),
        ("boundary", "boundary"),
    ];
    options.extend_from_slice(more);
    let engine = |e| args.engine_error(e, &options);
    let boundary = boltzlab::Boundary::parse(
        &args.choice("boundary", &["periodic", "open", "fixed-up", "fixed-down"])?,
    )
    .map_err(engine)?;
    let lattice = boltzlab::Lattice::new(size, height, coupling, field)
        .and_then(|l| l.with_boundary(boundary))
        .map_err(engine)?;
    Ok((lattice, temperature, options))
}
