# R's reference output for tests/test_formula_r.py (R is not needed to run the tests).
# Run from this directory:  Rscript r_formulas.R
# Writes r_formulas_data.csv (the data) and r_formulas_expected.json: for each formula R's
# attr(terms(f), "term.labels") and the columns of model.matrix(f, df) without "(Intercept)",
# or R's error message.
set.seed(20240607)
n <- 14
df <- data.frame(
  y = round(rnorm(n), 4),
  x1 = round(rnorm(n), 4),
  x2 = round(runif(n, -2, 2), 4),
  pos = round(runif(n, 0.5, 5), 4),
  n = c(1L, 2L, 3L, 4L, 1L, 2L, 3L, 4L, 1L, 2L, 3L, 4L, 2L, 3L),
  a.b = round(rnorm(n, 3), 4),
  f = c("u", "v", "w", "u", "v", "w", "u", "v", "w", "u", "v", "w", "u", "w"),
  g = c("p", "q", "q", "p", "p", "q", "q", "p", "q", "p", "q", "p", "q", "p"),
  flag = c(TRUE, FALSE, TRUE, TRUE, FALSE, FALSE, TRUE, FALSE, TRUE, TRUE, FALSE, TRUE, FALSE, TRUE),
  stringsAsFactors = FALSE
)
write.csv(df, "r_formulas_data.csv", row.names = FALSE)
df$f <- factor(df$f)
df$g <- factor(df$g)

formulas <- c(
  "y ~ x1", "y ~ x1 + x2", "y ~ .", "y ~ . - x2", "y ~ . - f - g - flag",
  "y ~ x1:x2", "y ~ x1*x2", "y ~ x1 + x2 + x1:x2", "y ~ (x1 + x2 + pos)^2",
  "y ~ (x1 + x2 + pos)^3", "y ~ (x1 + x2 + pos + n)^2 - x1:x2", "y ~ .^2",
  "y ~ (. - f - g - flag)^2", "y ~ x1*x2*pos", "y ~ x1/x2", "y ~ f/x1", "y ~ x1 - 1",
  "y ~ x1 + 0", "y ~ f", "y ~ g + f", "y ~ f + x1", "y ~ f*x1", "y ~ f:x1",
  "y ~ f + f:x1", "y ~ f*g", "y ~ f + g + f:g", "y ~ f:g", "y ~ flag", "y ~ flag + x1",
  "y ~ flag:x1", "y ~ factor(n)", "y ~ factor(n) + x1", "y ~ factor(n):x1",
  "y ~ n", "y ~ I(n^2)", "y ~ I(x1^2)", "y ~ x1 + I(x1^2) + I(x1^3)", "y ~ I(x1 * x2)",
  "y ~ I(x1 + x2)", "y ~ I(x1 - 2 * x2)", "y ~ I(x1 / pos)", "y ~ I(x1 > 0)",
  "y ~ I(2^n)", "y ~ log(pos)", "y ~ log(pos, 2)", "y ~ log2(pos) + log10(pos)",
  "y ~ exp(x1)", "y ~ sqrt(pos)", "y ~ abs(x1)", "y ~ log(pos^2)", "y ~ sqrt(abs(x1))",
  "y ~ exp(x1/2) + x2", "y ~ poly(x1, 2)", "y ~ poly(x1, 3)", "y ~ poly(n, 2)",
  "y ~ poly(x1, 2, raw = TRUE)", "y ~ poly(x1, degree = 2) + x2", "y ~ scale(x1)",
  "y ~ scale(x1) + scale(pos)", "y ~ scale(x1, scale = FALSE)",
  "y ~ scale(x1, center = FALSE)", "y ~ log(pos):x1", "y ~ scale(x1):f",
  "y ~ poly(x1, 2):x2", "y ~ a.b", "y ~ a.b + x1", "y ~ a.b:x1", "y ~ .:x1",
  "y ~ log(`a.b`)", "y ~ x1 + x2 - x2", "y ~ (x1 + x2)^2 - x1",
  "y ~ x1 + offset(x2)", "y ~ x1 %in% f", "y ~ log(a.b)"
)

json_string <- function(s) {
  s <- gsub("\\\\", "\\\\\\\\", s)
  s <- gsub("\"", "\\\\\"", s)
  paste0("\"", s, "\"")
}
json_strings <- function(v) paste0("[", paste(vapply(v, json_string, ""), collapse = ", "), "]")
json_numbers <- function(v) paste0("[", paste(sprintf("%.17g", v), collapse = ", "), "]")

entries <- character(0)
for (text in formulas) {
  f <- as.formula(text)
  result <- tryCatch({
    labels <- attr(terms(f, data = df), "term.labels")
    mm <- model.matrix(f, df)
    keep <- colnames(mm) != "(Intercept)"
    mm <- mm[, keep, drop = FALSE]
    columns <- paste(vapply(seq_len(ncol(mm)), function(j)
      paste0(json_string(colnames(mm)[j]), ": ", json_numbers(mm[, j])), ""), collapse = ",\n      ")
    paste0("    {\"formula\": ", json_string(text), ",\n     \"term_labels\": ", json_strings(labels),
           ",\n     \"column_names\": ", json_strings(colnames(mm)),
           ",\n     \"columns\": {\n      ", columns, "}}")
  }, error = function(e) {
    paste0("    {\"formula\": ", json_string(text), ", \"error\": ", json_string(conditionMessage(e)), "}")
  })
  entries <- c(entries, result)
}
writeLines(c("{\"r_version\": ", json_string(R.version.string), ", \"formulas\": [",
             paste(entries, collapse = ",\n"), "]}"), "r_formulas_expected.json")
