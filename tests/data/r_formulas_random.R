# R's reference output for tests/test_formula_r_random.py (R is not needed to run the test).
#
# Regenerate (from this directory; base R only, no packages):
#   python r_formula_grammar.py > /tmp/r_formulas_random.txt
#   Rscript r_formulas_random.R /tmp/r_formulas_random.txt
#
# Reads the formulas (one a line, drawn by r_formula_grammar.py with a fixed seed) and the frame
# r_formulas_data.csv (written by r_formulas.R), and writes r_formulas_random_expected.json.gz:
# for each formula either R's error message ("error"), or
#   term_labels   attr(terms(f, data = df), "term.labels")
#   intercept     attr(terms(f, data = df), "intercept")
#   column_names  colnames(model.matrix(f, df)) without "(Intercept)"
#   columns       those columns' values (12 significant digits)
#   rows          the rows model.matrix kept (1-based), only when it dropped some (NaN values)
args <- commandArgs(trailingOnly = TRUE)
formulas <- readLines(if (length(args) >= 1) args[1] else "/tmp/r_formulas_random.txt")
df <- read.csv("r_formulas_data.csv", stringsAsFactors = TRUE)
stopifnot(is.factor(df$f), is.factor(df$g), is.logical(df$flag), is.integer(df$n))

json_string <- function(s) {
  s <- gsub("\\\\", "\\\\\\\\", s)
  s <- gsub("\"", "\\\\\"", s)
  s <- gsub("\n", "\\\\n", s)
  paste0("\"", s, "\"")
}
json_strings <- function(v) paste0("[", paste(vapply(v, json_string, ""), collapse = ", "), "]")
json_numbers <- function(v) {
  text <- sprintf("%.12g", v)
  text[is.nan(v)] <- "NaN"
  text[is.infinite(v) & v > 0] <- "Infinity"
  text[is.infinite(v) & v < 0] <- "-Infinity"
  paste0("[", paste(text, collapse = ", "), "]")
}

entries <- character(0)
for (text in formulas) {
  result <- tryCatch({
    f <- as.formula(text)
    tt <- terms(f, data = df)
    labels <- attr(tt, "term.labels")
    mm <- model.matrix(f, df)
    rows <- as.integer(rownames(mm))
    keep <- colnames(mm) != "(Intercept)"
    mm <- mm[, keep, drop = FALSE]
    columns <- vapply(seq_len(ncol(mm)), function(j)
      paste0("[", json_string(colnames(mm)[j]), ", ", json_numbers(mm[, j]), "]"), "")
    rows_text <- if (length(rows) < nrow(df)) paste0(", \"rows\": ", json_numbers(rows)) else ""
    paste0("{\"formula\": ", json_string(text), ", \"term_labels\": ", json_strings(labels),
           ", \"intercept\": ", attr(tt, "intercept"),
           ", \"column_names\": ", json_strings(colnames(mm)), rows_text,
           ",\n  \"columns\": [", paste(columns, collapse = ",\n    "), "]}")
  }, error = function(e) {
    paste0("{\"formula\": ", json_string(text), ", \"error\": ", json_string(conditionMessage(e)), "}")
  })
  entries <- c(entries, result)
}
output <- gzfile("r_formulas_random_expected.json.gz", "w")
writeLines(c(paste0("{\"r_version\": ", json_string(R.version.string), ","),
             " \"data\": \"r_formulas_data.csv\",",
             " \"formulas\": [", paste(entries, collapse = ",\n"), "]}"), output)
close(output)
