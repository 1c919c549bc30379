//! The aggregation query for an engine (`calibscope sql`): one pass over the table,
//! each row expanded into its readings (a cross join with the reading numbers −1 for
//! the confidence, `0..k` for the classes), one GROUP BY `(model, reading, class,
//! cell)`; the result has the columns of [`crate::table::COLUMNS`].
//!
//! The per-row expressions transcribe the contract's readings: the max-subtracted
//! softmax of logits, the binary rule `r = 1` iff `p^(1) >= 0.5`, argmax ties to the
//! lowest class, the NLL (log-sum-exp minus the true logit; binary logits
//! `softplus(-y± s)`; probabilities clipped to `[1e-15, 1 - 1e-15]`), the confidence
//! clip `[1e-8, 1 - 1e-8]` of CSR/cwA/the weighted confusion, and the cell
//! `width_bin(u, 65536)`: `x = u·65536` (exact), `round(x)` when
//! `|x - round(x)| <= 1e-7·65536`, else `floor(x)`, clamped to `[0, 65535]`.
//! The engine does not validate the rows (labels outside `0..k`, NaN, rows that do
//! not sum to 1): check the table first, or audit a sample of it as a file.
//!
//! Floating-point sums use the engine's compensated sum where it has one (DuckDB's
//! `fsum`, Kahan–Babuška), as calibscope's own aggregate does: the two then agree to
//! a few units in the last place per cell, whatever order each engine adds in.

use crate::{CLASS_LIMIT, FORMAT, GRID};
use calibscope_core::beyond::CONFIDENCE_CLIP;
use calibscope_core::binning::EDGE_TOLERANCE;

/// Engines with a dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// DuckDB.
    DuckDb,
    /// PostgreSQL.
    Postgres,
    /// Apache DataFusion.
    DataFusion,
    /// Spark SQL.
    Spark,
    /// Google BigQuery (standard SQL).
    BigQuery,
    /// Trino / Presto.
    Trino,
}

impl Dialect {
    /// Parses a dialect name.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "duckdb" => Dialect::DuckDb,
            "postgres" | "postgresql" => Dialect::Postgres,
            "datafusion" => Dialect::DataFusion,
            "spark" | "sparksql" => Dialect::Spark,
            "bigquery" => Dialect::BigQuery,
            "trino" | "presto" => Dialect::Trino,
            _ => return None,
        })
    }

    fn double(self) -> &'static str {
        match self {
            Dialect::Postgres => "DOUBLE PRECISION",
            Dialect::BigQuery => "FLOAT64",
            _ => "DOUBLE",
        }
    }

    /// The sum of DOUBLE values: compensated where the engine has it.
    fn sum(self) -> &'static str {
        match self {
            Dialect::DuckDb => "fsum",
            _ => "SUM",
        }
    }

    fn bigint(self) -> &'static str {
        match self {
            Dialect::BigQuery => "INT64",
            _ => "BIGINT",
        }
    }

    fn quote(self, ident: &str) -> String {
        match self {
            Dialect::Spark | Dialect::BigQuery => format!("`{}`", ident.replace('`', "``")),
            _ => format!("\"{}\"", ident.replace('"', "\"\"")),
        }
    }

    /// Element `r` (0-based) of a list column.
    fn element(self, column: &str, r: usize) -> String {
        let c = self.quote(column);
        match self {
            Dialect::BigQuery => format!("{c}[OFFSET({r})]"),
            Dialect::Spark => format!("element_at({c}, {})", r + 1),
            _ => format!("{c}[{}]", r + 1),
        }
    }

    /// A DOUBLE literal of exactly `x`.
    fn lit(self, x: f64) -> String {
        format!("CAST({x:e} AS {})", self.double())
    }

    fn readings(self, k: Option<usize>) -> String {
        let ids: Vec<String> = std::iter::once(-1i64)
            .chain((0..k.unwrap_or(0)).map(|r| r as i64))
            .map(|r| r.to_string())
            .collect();
        match self {
            Dialect::BigQuery => format!("UNNEST([{}]) AS r", ids.join(", ")),
            _ => format!(
                "(VALUES {}) AS rd(r)",
                ids.iter()
                    .map(|r| format!("({r})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// How the table's columns hold the predictions.
#[derive(Clone, Debug, PartialEq)]
pub enum Scores {
    /// One column per class (one column: a binary `P(y=1)` or logit).
    Columns(Vec<String>),
    /// One list (array) column of `k` values.
    List(String, usize),
    /// Top-label input: predicted-class and confidence columns.
    TopLabel(String, String),
}

/// What `calibscope sql` needs.
#[derive(Clone, Debug, PartialEq)]
pub struct QuerySpec {
    /// The engine.
    pub dialect: Dialect,
    /// The table (written as given: a name, a qualified name, or a table function).
    pub table: String,
    /// The integer label column.
    pub label: String,
    /// The score columns.
    pub scores: Scores,
    /// The scores are logits (else probabilities).
    pub logits: bool,
    /// The model column, or `None` (one model named `model_name`).
    pub model_column: Option<String>,
    /// The model's name when there is no model column.
    pub model_name: String,
}

/// The query, or why it cannot be written.
pub fn query(spec: &QuerySpec) -> Result<String, String> {
    let d = spec.dialect;
    let dbl = d.double();
    let q = |c: &str| d.quote(c);
    let model = match &spec.model_column {
        Some(c) => format!(
            "CAST({} AS {})",
            q(c),
            match d {
                Dialect::BigQuery | Dialect::Spark => "STRING",
                _ => "VARCHAR",
            }
        ),
        None => format!("'{}'", spec.model_name.replace('\'', "''")),
    };
    let y = format!("CAST({} AS {})", q(&spec.label), d.bigint());
    let (lo, hi) = (d.lit(CONFIDENCE_CLIP), d.lit(1.0 - CONFIDENCE_CLIP));
    let (nlo, nhi) = (
        d.lit(calibscope_core::audit::NLL_CLIP),
        d.lit(1.0 - calibscope_core::audit::NLL_CLIP),
    );
    let clip = |x: &str, a: &str, b: &str| format!("LEAST(GREATEST({x}, {a}), {b})");
    // stage 1: model, y and the scores as s0..s{k-1} (or yhat, c)
    let (k, kind, stage1) = match &spec.scores {
        Scores::TopLabel(pred, conf) => (
            None,
            "toplabel",
            format!(
                "SELECT {model} AS model, {y} AS y, CAST({} AS {}) AS yhat, CAST({} AS {dbl}) AS c FROM {}",
                q(pred),
                d.bigint(),
                q(conf),
                spec.table
            ),
        ),
        Scores::Columns(cols) if cols.is_empty() => {
            return Err("no score columns".into())
        }
        Scores::List(_, k) if *k < 2 => return Err("a list column holds at least 2 classes".into()),
        Scores::Columns(cols) => {
            let s: Vec<String> = cols
                .iter()
                .enumerate()
                .map(|(r, c)| format!("CAST({} AS {dbl}) AS s{r}", q(c)))
                .collect();
            let k = cols.len().max(2);
            (
                Some(k),
                if k == 2 { "binary" } else { "multiclass" },
                format!("SELECT {model} AS model, {y} AS y, {} FROM {}", s.join(", "), spec.table),
            )
        }
        Scores::List(col, k) => {
            let s: Vec<String> = (0..*k)
                .map(|r| format!("CAST({} AS {dbl}) AS s{r}", d.element(col, r)))
                .collect();
            (
                Some(*k),
                if *k == 2 { "binary" } else { "multiclass" },
                format!("SELECT {model} AS model, {y} AS y, {} FROM {}", s.join(", "), spec.table),
            )
        }
    };
    let one_column = matches!(&spec.scores, Scores::Columns(c) if c.len() == 1);
    // stage 2: probabilities p0..p{k-1} and the NLL term
    let stage2 = match k {
        None => format!("SELECT model, y, yhat, c FROM ({stage1}) s1"),
        Some(k) => {
            let ps: Vec<String>;
            let nll: String;
            let inner: String;
            if one_column {
                let s = "s0";
                let p1 = if spec.logits {
                    format!("CASE WHEN {s} >= 0 THEN 1 / (1 + EXP(-{s})) ELSE EXP({s}) / (1 + EXP({s})) END")
                } else {
                    s.to_string()
                };
                inner = format!("SELECT model, y, s0, {p1} AS p1 FROM ({stage1}) s1");
                ps = vec!["1 - p1 AS p0".into(), "p1".into()];
                nll = if spec.logits {
                    // softplus(x), x = -y± s, with ln(1 + e) by its series below 1e-5
                    let x = "(CASE WHEN y = 1 THEN -s0 ELSE s0 END)";
                    let e = format!("EXP(-ABS({x}))");
                    format!(
                        "GREATEST({x}, 0) + CASE WHEN {e} < 1e-5 THEN {e} - {e} * {e} / 2 + {e} * {e} * {e} / 3 ELSE LN(1 + {e}) END"
                    )
                } else {
                    format!(
                        "-LN({})",
                        clip("CASE WHEN y = 1 THEN p1 ELSE 1 - p1 END", &nlo, &nhi)
                    )
                };
            } else if spec.logits {
                let s: Vec<String> = (0..k).map(|r| format!("s{r}")).collect();
                let e: Vec<String> = (0..k).map(|r| format!("EXP(s{r} - mx) AS e{r}")).collect();
                let den: Vec<String> = (0..k).map(|r| format!("e{r}")).collect();
                inner = format!(
                    "SELECT *, {} AS den FROM (SELECT *, {} FROM (SELECT *, GREATEST({}) AS mx FROM ({stage1}) s1) s1m) s1e",
                    den.join(" + "),
                    e.join(", "),
                    s.join(", ")
                );
                ps = (0..k).map(|r| format!("e{r} / den AS p{r}")).collect();
                let sy: Vec<String> = (0..k).map(|r| format!("WHEN {r} THEN s{r}")).collect();
                nll = format!("(mx + LN(den)) - CASE y {} END", sy.join(" "));
            } else {
                inner = format!("SELECT * FROM ({stage1}) s1");
                ps = (0..k).map(|r| format!("s{r} AS p{r}")).collect();
                let py: Vec<String> = (0..k).map(|r| format!("WHEN {r} THEN s{r}")).collect();
                nll = format!(
                    "-LN({})",
                    clip(&format!("CASE y {} END", py.join(" ")), &nlo, &nhi)
                );
            }
            format!(
                "SELECT model, y, {}, {nll} AS nll FROM ({inner}) s2i",
                ps.join(", ")
            )
        }
    };
    // stage 3: the top label (yhat, c), z, the brier and the clipped confidence
    let stage3 = match k {
        None => format!(
            "SELECT model, y, yhat, c, CASE WHEN yhat = y THEN 1 ELSE 0 END AS z, CAST(NULL AS {dbl}) AS nll, CAST(NULL AS {dbl}) AS brier FROM ({stage2}) s2"
        ),
        Some(k) => {
            let (yhat, c) = if k == 2 {
                ("CASE WHEN p1 >= 0.5 THEN 1 ELSE 0 END".to_string(), "CASE WHEN p1 >= 0.5 THEN p1 ELSE p0 END".to_string())
            } else {
                // class r wins when p_r >= every later p (earlier ones were checked first)
                let when = |r: usize| {
                    let conds: Vec<String> = (r + 1..k).map(|j| format!("p{r} >= p{j}")).collect();
                    if conds.is_empty() {
                        "1 = 1".to_string()
                    } else {
                        conds.join(" AND ")
                    }
                };
                let yh: Vec<String> = (0..k).map(|r| format!("WHEN {} THEN {r}", when(r))).collect();
                let cs: Vec<String> = (0..k).map(|r| format!("WHEN {} THEN p{r}", when(r))).collect();
                (format!("CASE {} END", yh.join(" ")), format!("CASE {} END", cs.join(" ")))
            };
            let brier: Vec<String> = (0..k)
                .map(|r| format!("(p{r} - CASE WHEN y = {r} THEN 1 ELSE 0 END) * (p{r} - CASE WHEN y = {r} THEN 1 ELSE 0 END)"))
                .collect();
            let ps: Vec<String> = (0..k).map(|r| format!("p{r}")).collect();
            format!(
                "SELECT model, y, yhat, c, {}, CASE WHEN yhat = y THEN 1 ELSE 0 END AS z, nll, brier FROM (SELECT model, y, {}, nll, {yhat} AS yhat, {c} AS c, {} AS brier FROM ({stage2}) s2) s3i",
                ps.join(", "),
                ps.join(", "),
                brier.join(" + ")
            )
        }
    };
    let with_classes = k.filter(|&k| k <= CLASS_LIMIT);
    let cc = clip("c", &lo, &hi);
    let pick = |conf: &str, class: &dyn Fn(usize) -> String| -> String {
        let arms: Vec<String> = (0..with_classes.unwrap_or(0))
            .map(|r| format!("WHEN {r} THEN {}", class(r)))
            .collect();
        format!("CASE r WHEN -1 THEN {conf} {} END", arms.join(" "))
    };
    let u = pick("c", &|r| format!("p{r}"));
    let o = pick("z", &|r| format!("CASE WHEN y = {r} THEN 1 ELSE 0 END"));
    let conf_only = |x: &str| format!("CASE WHEN r = -1 THEN {x} ELSE 0 END");
    let class_flag = |cond: &str| format!("CASE WHEN r >= 0 AND {cond} THEN 1 ELSE 0 END");
    let class_w = |cond: &str| format!("CASE WHEN r >= 0 AND {cond} THEN cc ELSE 0 END");
    let (tp, fp, fn_) = (
        "yhat = r AND y = r",
        "yhat = r AND y <> r",
        "yhat <> y AND y = r",
    );
    let cell = {
        let x = format!("u * {}", d.lit(GRID as f64));
        let tol = d.lit(EDGE_TOLERANCE * GRID as f64);
        format!(
            "LEAST({}, GREATEST(0, CAST(CASE WHEN ABS({x} - ROUND({x})) <= {tol} THEN ROUND({x}) ELSE FLOOR({x}) END AS {})))",
            GRID - 1,
            d.bigint()
        )
    };
    let k_expr = match k {
        Some(k) => format!("{k}"),
        None => "GREATEST(MAX(GREATEST(y, yhat)) + 1, 2)".into(),
    };
    let nullable = |x: &str| match k {
        Some(_) => conf_only(x),
        None => format!("CAST(NULL AS {dbl})"),
    };
    let expanded = format!(
        "SELECT model, y, yhat, CASE WHEN r = -1 THEN 'confidence' ELSE 'class' END AS reading, r AS class, {u} AS u, {o} AS o, \
{} AS nll, {} AS brier_mc, {} AS csr_wrong, {} AS csr_odds, {} AS cw_weight, {} AS cw_correct, \
{} AS tp, {} AS fp, {} AS fn, {} AS cw_tp, {} AS cw_fp, {} AS cw_fn \
FROM (SELECT *, {cc} AS cc FROM ({stage3}) s3) t CROSS JOIN {}",
        nullable("nll"),
        nullable("brier"),
        conf_only("CASE WHEN z = 0 THEN 1 / (1 - cc) ELSE 0 END"),
        conf_only("cc / (1 - cc)"),
        conf_only("cc"),
        conf_only("cc * z"),
        class_flag(tp),
        class_flag(fp),
        class_flag(fn_),
        class_w(tp),
        class_w(fp),
        class_w(fn_),
        d.readings(with_classes),
    );
    let sums = crate::table::global_sums();
    let sums: Vec<String> = sums
        .iter()
        .map(|c| {
            // tp, fp, fn count rows: integers, summed exactly by any engine
            let sum = if matches!(*c, "tp" | "fp" | "fn") {
                "SUM"
            } else {
                d.sum()
            };
            format!("{sum}({c}) AS {}", q(c))
        })
        .collect();
    Ok(format!(
        "-- {FORMAT}: calibscope's aggregate of {table} (one pass; GROUP BY model, reading, class, cell)\n\
SELECT '{FORMAT}' AS format, model, '{kind}' AS kind, {k_expr} AS k, reading, class, cell,\n  \
COUNT(*) AS n, {fsum}(u) AS sum_u, SUM(o) AS sum_o, {fsum}((u - o) * (u - o)) AS sum_sq, MIN(u) AS min_u, MAX(u) AS max_u,\n  \
{}\n\
FROM (SELECT *, {cell} AS cell FROM ({expanded}) x) w\n\
GROUP BY model, reading, class, cell\n\
ORDER BY model, reading, class, cell\n",
        sums.join(", "),
        table = spec.table,
        fsum = d.sum(),
    ))
}
