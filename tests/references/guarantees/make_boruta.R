# R's Boruta decisions on fixed importance sequences: reference data for tests/test_boruta.py
# (R is not needed to run the tests).
#
# Source: the CRAN package Boruta 8.0.0, github.com/cran/Boruta at commit
# f9542014bae86c696fac1b53051191ac2b0a9cf5 (R/Boruta.R and R/tools.R are sourced as they are;
# the package itself, and ranger, need not be installed).  Run from this directory:
#
#   git clone https://github.com/cran/Boruta /tmp/Boruta   # (git -C /tmp/Boruta checkout f954201)
#   Rscript make_boruta.R /tmp/Boruta/R
#
# For each scenario the importance source is deterministic: a custom getImp returns, at its r-th
# call, row r of a table of attribute importances (looked up by the names of the attributes it is
# given, i.e. those not yet rejected) and the first nShadow entries of row r of a table of shadow
# importances (shadow1, shadow2, ...; R makes at least 5 shadows).  Writes, per scenario <s>:
#   boruta_<s>_attributes.csv  the attribute table (runs x attributes; input)
#   boruta_<s>_shadows.csv     the shadow table (runs x shadows; input)
#   boruta_<s>_history.csv     R's ImpHistory (-Inf where an attribute was already rejected)
#   boruta_<s>_result.csv      per attribute: finalDecision, attStats, and TentativeRoughFix's
#                              decision over all runs (averageOver = Inf) and the last 5
#   boruta_<s>_print.txt       print(b) and print(TentativeRoughFix(b)) (the times vary)
# and boruta_scenarios.csv (each scenario's maxRuns, pValue, mcAdj).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript make_boruta.R <path to Boruta's R/ folder>")
source(file.path(args[1], "Boruta.R"))
source(file.path(args[1], "tools.R"))

scenarios <- list(
  # Ten attributes, R's defaults: confirmations, rejections, tentatives at maxRuns.
  a = list(mu = c(4, 3, 2.2, 1.6, 1.3, 1.0, 0.5, 0, -1, -3), maxRuns = 100, pValue = 0.01, mcAdj = TRUE,
           seed = 1),
  # Six attributes, no adjustment, a short run: after the rejections fewer than 5 attributes are
  # left and the shadows are doubled (4 attributes -> 8 shadows).
  b = list(mu = c(3, 1.5, 1.2, 0.8, -2, -2), maxRuns = 30, pValue = 0.05, mcAdj = FALSE, seed = 2),
  # Twelve attributes and the smallest maxRuns (11: 10 runs).
  c = list(mu = c(5, 5, 4, -4, -4, -5, 1, 1, 1.5, 0.5, 0, 2), maxRuns = 11, pValue = 0.05, mcAdj = TRUE,
           seed = 3)
)

settings <- data.frame()
for (s in names(scenarios)) {
  sc <- scenarios[[s]]
  set.seed(sc$seed)
  nAtt <- length(sc$mu)
  nRun <- sc$maxRuns - 1
  attNames <- sprintf("a%d", seq_len(nAtt))
  A <- round(matrix(rnorm(nRun * nAtt, mean = rep(sc$mu, each = nRun)), nRun, nAtt), 4)
  colnames(A) <- attNames
  S <- round(matrix(rnorm(nRun * max(8, nAtt)), nRun, max(8, nAtt)), 4)
  colnames(S) <- sprintf("shadow%d", seq_len(ncol(S)))

  call <- 0
  getImpTable <- function(x, y, ...) {
    call <<- call + 1
    nm <- names(x)
    sha <- grepl("^shadow", nm)
    stopifnot(all(nm[!sha] %in% attNames), sum(sha) <= ncol(S))
    c(A[call, nm[!sha]], S[call, seq_len(sum(sha))])
  }
  comment(getImpTable) <- "fixed table"

  x <- as.data.frame(matrix(0, 4, nAtt, dimnames = list(NULL, attNames)))
  b <- Boruta.default(x, factor(c(1, 2, 1, 2)), pValue = sc$pValue, mcAdj = sc$mcAdj, maxRuns = sc$maxRuns,
                      getImp = getImpTable)
  st <- attStats(b)
  fixAll <- TentativeRoughFix(b)
  fix5 <- TentativeRoughFix(b, averageOver = 5)
  result <- data.frame(attribute = attNames, decision = as.character(b$finalDecision), st[, 1:5],
                       roughfix_all = as.character(fixAll$finalDecision),
                       roughfix_last5 = as.character(fix5$finalDecision))
  write.csv(A, sprintf("boruta_%s_attributes.csv", s), row.names = FALSE)
  write.csv(S, sprintf("boruta_%s_shadows.csv", s), row.names = FALSE)
  write.csv(b$ImpHistory, sprintf("boruta_%s_history.csv", s), row.names = FALSE)
  write.csv(result, sprintf("boruta_%s_result.csv", s), row.names = FALSE)
  settings <- rbind(settings, data.frame(scenario = s, maxRuns = sc$maxRuns, pValue = sc$pValue,
                                         mcAdj = sc$mcAdj, runs = nrow(b$ImpHistory)))
  writeLines(c(capture.output(print(b)), capture.output(print(fixAll))), sprintf("boruta_%s_print.txt", s))
  print(b)
}
write.csv(settings, "boruta_scenarios.csv", row.names = FALSE)
