//! The words of the page: one-line explanations of every metric, why a value can be
//! undefined, and friendly text for every stable error code.

/// A metric the page shows: its key, label and one-line explanation.
pub struct MetricDoc {
    pub key: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    /// Why the value can be undefined.
    pub undefined: &'static str,
}

const fn doc(
    key: &'static str,
    label: &'static str,
    help: &'static str,
    undefined: &'static str,
) -> MetricDoc {
    MetricDoc {
        key,
        label,
        help,
        undefined,
    }
}

/// Every metric of the overview and of the explorer's ECE family.
pub const METRICS: &[MetricDoc] = &[
    doc("accuracy", "Accuracy", "Share of samples whose predicted class (argmax; binary: p ≥ 0.5) is the label.", "undefined without samples"),
    doc("ece_width", "ECE (width)", "Expected calibration error: mean |accuracy − confidence| over equal-width bins, weighted by bin size.", "undefined without samples"),
    doc("ece_mass", "ECE (mass)", "Expected calibration error over equal-mass bins (each bin holds the same number of samples).", "undefined without samples"),
    doc("ece", "ECE", "Expected calibration error: (1/n) Σ_bins |Σ (outcome − forecast)|.", "undefined without samples"),
    doc("mce", "MCE", "Maximum calibration error: the largest |accuracy − confidence| of any non-empty bin.", "undefined without samples"),
    doc("rmsce", "RMSCE", "Root-mean-square calibration error: √(Σ (n_B/n)(acc_B − conf_B)²).", "undefined without samples"),
    doc("lince", "LinCE", "Binned squared error (1/n²) Σ_bins (Σ (forecast − outcome))²; truthful when corrected.", "undefined without samples"),
    doc("brier", "Brier", "Mean squared error of the forecasts: lower is better; CAL + REF + RES add up to it.", "not available for top-label input (no probability vector)"),
    doc("cal", "CAL", "Calibration part of the Brier score: Σ (n_B/n)(conf_B − acc_B)².", "not available for this input"),
    doc("ref", "REF", "Refinement part of the Brier score: Σ (n_B/n) acc_B (1 − acc_B).", "not available for this input"),
    doc("res", "RES", "Residual Brier − CAL − REF: zero only when forecasts coincide within each bin.", "not available for this input"),
    doc("nll", "NLL", "Negative log-likelihood of the true class (probabilities clipped to [1e-15, 1 − 1e-15]).", "not available for top-label input (no probability vector)"),
    doc("auc", "AUC", "Area under the ROC curve (binary: class 1; multiclass: macro one-vs-rest over defined classes).", "undefined when a class has no positive or no negative sample, or for top-label input"),
    doc("lince_cw", "LinCE^cw", "Classwise LinCE: mean over classes of each class reading's LinCE; a truthful calibration error.", "not available for top-label input (needs every class probability)"),
    doc("confce_corr", "ConfCE^corr", "Confidence CE with bias correction (+(1 − acc)/n): truthful, so honest confidences minimise it.", "undefined without samples"),
    doc("csr", "CSR ± σ", "Calibrated Size Ratio: (1/n) Σ_wrong 1/(1 − c); about 1 when calibrated, above 1 when overconfident.", "undefined without samples"),
    doc("p_risk", "P_risk", "Overconfidence risk: Φ((CSR − 1)/σ) when CSR > 1, and 0 when CSR ≤ 1: risk is read from the upper tail only (mistakes that cost no more than a calibrated model's carry none). The badge: high from 0.95, moderate from 0.5, low below. Low risk does not mean calibrated: P_risk weighs only the mistakes made with high confidence, so an underconfident model can show low risk; see the next column.", "undefined when σ is 0"),
    doc("conf_gap", "conf − acc", "Mean confidence minus accuracy (mean confidence from the 10-bin reliability table: Σ n·conf / n). The badge: at −0.02 or below, underconfident by that many points; at +0.02 or above, overconfident; in between, close to calibrated when the ECE shown is below 0.05, else mixed (some bins over-, others underconfident). A description of these numbers, not a statistical test.", "undefined without samples"),
    doc("cwa", "cwA", "Confidence-weighted accuracy: Σ c·correct / Σ c.", "undefined without samples"),
    doc("gain", "gain", "(cwA − acc)/(1 − min(cwA, acc)): positive when confidence ranks right answers higher.", "undefined when accuracy or cwA is 1"),
    doc("cwauc", "cwAUC", "Confidence-weighted AUC: pairs weighted by the product of their top-label confidences.", "undefined when a class has no positive or no negative sample, or for top-label input"),
    doc("confce", "ConfCE", "Binned squared error of the confidence reading (LinCE of the confidences).", "undefined without samples"),
    doc("nonempty_bins", "bins", "Number of non-empty bins.", ""),
    doc("smece", "smooth ECE", "Smooth ECE (Błasiok & Nakkiran 2023): the calibration error of the confidence without bins, from a kernel-smoothed reliability curve whose bandwidth is chosen from the data.", "undefined without samples"),
    doc("ece_l2", "L2 CE (debiased)", "Root-mean-square calibration error over equal-width bins with the noise of each bin's accuracy subtracted (Kumar, Liang & Ma 2019): less inflated by small bins than the plain one.", "undefined without samples"),
];

/// The doc of a metric key (falls back to an empty doc).
pub fn metric(key: &str) -> &'static MetricDoc {
    static EMPTY: MetricDoc = doc("", "", "", "undefined for this input");
    METRICS.iter().find(|d| d.key == key).unwrap_or(&EMPTY)
}

/// A friendly title and how to fix it, for a stable error code.
pub fn error_help(code: &str) -> (&'static str, &'static str) {
    match code {
        "nan_or_inf" => ("A value is NaN or infinite", "Remove or fix the rows named below; calibscope never repairs them silently."),
        "prob_out_of_range" => ("A probability is outside [0, 1]", "If the columns hold logits, choose “logits” in the mapping panel; otherwise fix the rows named below."),
        "row_sum" => ("Probabilities do not sum to 1", "Each row must sum to 1 ± 0.001. If these are logits, choose “logits” in the mapping panel; otherwise renormalise the rows named below."),
        "label_out_of_range" => ("A label is outside 0..k−1", "Labels must be class indices matching the score columns; check the rows named below."),
        "empty_file" => ("The file is empty", "Export the predictions again."),
        "unknown_format" => ("Not a prediction file calibscope can read", "Save the predictions as CSV/TSV, JSON, .npy or .npz (plain, or compressed with gzip or zstd)."),
        "mapping_guess" => ("The labels do not fit the way the columns were read", "Answer the question in the mapping panel below, or map the columns by hand."),
        "compressed_bad" => ("The compressed file is damaged or cut short", "Download or compress the file again; gzip and zstd files are read as they are."),
        "not_utf8" => ("The text is not UTF-8", "Save the file as UTF-8."),
        "header_only" => ("The table has a header but no rows", "Export the predictions with their rows."),
        "no_header" => ("The table has no header row", "Add a header such as label,p_0,p_1,…"),
        "record_too_long" => ("A line is too long", "Check the delimiter and quoting of the file."),
        "file_too_large" => ("The file is larger than this page's limit", "Raise the limit under “Limits” if this machine has the memory, or audit the file with the calibscope CLI."),
        "too_many_cells" => ("The file holds more values than this page's limit", "Raise the limit under “Limits” if this machine has the memory, or audit the file with the calibscope CLI."),
        "duplicate_column" => ("Two columns have the same name", "Rename one of them."),
        "missing_label_column" => ("No label column was found", "Name it label (or y, target), or pick it in the mapping panel below."),
        "missing_score_columns" => ("No score columns were found", "Name them p_0..p_k-1, logit_0.., p or logit, or list them in the mapping panel."),
        "bad_mapping" => ("The mapping cannot be used", "Correct the field named below in the mapping panel."),
        "mapping_column_missing" => ("A column chosen in the mapping does not exist", "Pick another column in the mapping panel."),
        "invalid_mapping" => ("The mapping cannot be applied", "Reset the mapping panel to “detect”."),
        "ragged_row" => ("A row has the wrong number of fields", "Check quoting and delimiters at the row named below."),
        "bad_number" => ("A value is not a number", "Fix the cell named below."),
        "bad_label" => ("A label is not a class index", "Labels must be integers 0..k−1 (or the class names of the columns)."),
        "mixed_label_types" => ("Labels mix numbers and names", "Use one kind of label throughout."),
        "model_length_mismatch" => ("Models have different numbers of samples", "Every model must predict the same samples."),
        "model_label_mismatch" => ("Models disagree on a sample's label", "Every model must list the same samples in the same order."),
        "incompatible_files" => ("The files cannot be combined", "Drop files that predict the same samples with the same classes."),
        "json_syntax" => ("The JSON is not valid", "Fix the syntax at the line named below."),
        "json_shape" => ("The JSON does not hold predictions", "Use an array of records, JSON Lines, or an object of columns."),
        "npy_bad_magic" | "npy_bad_header" => ("The .npy file is damaged", "Save it again with np.save."),
        "npy_unsupported_dtype" => ("The .npy data type is not supported", "Save labels as integers and scores as float32/float64."),
        "npy_unsupported_shape" => ("The .npy shape is not supported", "Save labels as (n,) and scores as (n,) or (n, k)."),
        "npy_truncated" | "zip_truncated" => ("The file is truncated", "Copy or export the file again."),
        "npy_trailing_data" => ("The .npy file has data after its array", "Save it again with np.save."),
        "npy_needs_pair" => ("This .npy needs its pair", "Drop NAME.labels.npy together with NAME.probs.npy or NAME.logits.npy."),
        "length_mismatch" => ("Labels and scores have different lengths", "Save both arrays from the same samples."),
        "zip_bad" | "zip_unsupported" | "zip_crc" | "zip_empty" => ("The .npz archive cannot be read", "Save it again with np.savez or np.savez_compressed."),
        "columnar_bad" => ("The Parquet or Arrow file cannot be read", "Copy or write the file again; it may be truncated."),
        "columnar_unsupported" => ("This Parquet or Arrow file cannot be read here", "Audit it with the calibscope command-line tool, or write the predictions as CSV (df.to_csv) or .npz."),
        "zip_too_large" => ("The .npz inflates to too much data", "Split the predictions into smaller files."),
        "read_failed" => ("The browser could not read the file", "Check that the file still exists and try again."),
        "no_dataset" => ("No data set is open", "Drop a prediction file first."),
        "bad_request" | "bad_parameters" => ("The app sent a request the worker did not understand", "Reload the page; if it persists, please report it."),
        "panic" => ("The computation crashed", "Restart the worker; if it happens again with the same file, please report it."),
        "proto_mismatch" => ("The worker is from another version of the app", "Reload the page."),
        _ => ("The input could not be read", "See the details below."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_code_has_its_own_text() {
        let fallback = error_help("surely-not-a-code");
        let io_codes = calibscope_io::ErrorCode::ALL.iter().map(|c| c.code());
        for code in io_codes.chain([
            crate::proto::codes::BAD_REQUEST,
            crate::proto::codes::NO_DATASET,
            crate::proto::codes::READ_FAILED,
            crate::proto::codes::BAD_PARAMETERS,
            crate::proto::codes::PANIC,
            crate::proto::codes::BAD_MAPPING,
        ]) {
            assert_ne!(error_help(code), fallback, "{code}");
        }
    }

    #[test]
    fn every_metric_has_help() {
        for d in METRICS {
            assert!(!d.help.is_empty() && !d.label.is_empty(), "{}", d.key);
        }
        assert_eq!(metric("ece").label, "ECE");
    }
}
