# R's terms for the formula table of docs/coming_from_r.rst (tests/test_docs_pages.py; R is not
# needed to run the tests).  Run from this directory:  Rscript r_coming_from_r.R
# Writes r_coming_from_r_data.csv (the data frame the table describes) and r_coming_from_r.json:
# for each formula in the table's first column, R's attr(terms(f, data = df), "term.labels"),
# its intercept and the variables of its left-hand side.
df <- data.frame(
  y = c(0.52, -1.31, 0.87, 2.05, -0.44, 0.13, -0.98, 1.47, 0.36, -0.72, 1.12, -0.05),
  a = c(1.2, 0.8, 2.6, 1.9, 0.6, 2.2, 1.4, 2.9, 0.9, 1.7, 2.4, 1.1),
  b = c(-0.3, 1.1, 0.4, -1.6, 0.9, -0.2, 1.8, -0.7, 0.05, 1.3, -1.1, 0.6),
  c = rep(1:3, 4),
  f = c("u", "v", "w", "u", "v", "w", "u", "v", "w", "w", "v", "u"),
  a.b = c(3.1, 2.7, 4.4, 3.8, 2.2, 3.5, 4.9, 2.9, 3.3, 4.1, 2.5, 3.7),
  stringsAsFactors = FALSE
)
write.csv(df, "r_coming_from_r_data.csv", row.names = FALSE)
df$f <- factor(df$f)

lines <- readLines("../../docs/coming_from_r.rst")
start <- which(lines == "Formulas" & c(lines[-1], "") == "--------")
stopifnot(length(start) == 1)
rows <- grep("^   \\* - ``.*``$", lines[start:length(lines)], value = TRUE)
formulas <- sub("^   \\* - ``(.*)``$", "\\1", rows)
formulas <- formulas[formulas != "R"]

json_string <- function(s) {
  s <- gsub("\\\\", "\\\\\\\\", s)
  s <- gsub("\"", "\\\\\"", s)
  paste0("\"", s, "\"")
}
json_strings <- function(v) paste0("[", paste(vapply(v, json_string, ""), collapse = ", "), "]")

entries <- character(0)
for (text in formulas) {
  f <- as.formula(text)
  t <- terms(f, data = df)
  response <- if (length(f) == 3) f[[2]] else NULL
  entries <- c(entries, paste0(
    "{\"formula\": ", json_string(text),
    ", \"term_labels\": ", json_strings(attr(t, "term.labels")),
    ", \"intercept\": ", attr(t, "intercept"),
    ", \"response\": ", json_string(paste(deparse(response), collapse = "")),
    ", \"response_variables\": ", json_strings(all.vars(response)), "}"))
}
writeLines(c(paste0("{\"R\": ", json_string(R.version.string), ", \"formulas\": ["),
             paste0("  ", entries, c(rep(",", length(entries) - 1), "")), "]}"),
           "r_coming_from_r.json")
