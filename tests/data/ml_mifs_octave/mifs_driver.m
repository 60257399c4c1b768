function mifs_driver(casedir, toolbox, shimdir, stubdir)
  % Runs the MLC toolbox's MIFS_train on one case of this folder and writes its outputs there.
  %
  % The inputs (X.csv, Y.csv, params.json, the start V0/B0/W0) are those written by make.sh.  The features
  % are z-scored (population sd) as fstools does; the graph is the toolbox's constructW (k = p nearest
  % neighbours, heat kernel exp(-d^2 / (2 t^2)) with t^2 = delta^2, the mean squared distance over all
  % pairs, fstools' width); MIFS_train runs unchanged, its rand() replaced by the given start and its
  % stopping rule switched off (epsIt = 0), for n_iter iterations of step lambda = step.  MIFS_train
  % returns W only, so the same steps are written out below to record V, B and the objective per
  % iteration; the two W must agree exactly.
  addpath(toolbox); addpath(stubdir);
  P = jsondecode(fileread(fullfile(casedir, 'params.json')));
  X = dlmread(fullfile(casedir, 'X.csv'), ',');
  Y = dlmread(fullfile(casedir, 'Y.csv'), ',');
  V0 = dlmread(fullfile(casedir, 'V0.csv'), ',');
  B0 = dlmread(fullfile(casedir, 'B0.csv'), ',');
  W0 = dlmread(fullfile(casedir, 'W0.csv'), ',');
  [n, d] = size(X);
  l = size(Y, 2);
  Z = (X - mean(X)) ./ std(X, 1);
  D2 = EuDist2(Z, [], 0);
  delta2 = mean(D2(:));
  opt_w = struct('k', P.p, 't', sqrt(delta2), 'NeighborMode', 'KNN', 'WeightMode', 'HeatKernel');
  S = constructW(Z, opt_w);
  L = sparse(1:n, 1:n, sum(S), n, n) - S;          % as in MIFS_train

  % MIFS_train unchanged; maxIt = n_iter + 1 gives n_iter iterations (its loop runs while t < maxIt)
  global MIFS_START
  MIFS_START = {W0, V0, B0};
  addpath(shimdir);
  prm = struct('alpha', P.alpha, 'beta', P.beta, 'gamma', P.gamma, 'k', P.c / l, 'dim', d, ...
               'maxIt', P.n_iter + 1, 'opt_w', opt_w, 'epsIt', 0, 'lambda', P.step);
  method.name = {'MIFS', 'Stub'};
  method.param = {prm, struct()};
  message = strtrim(evalc('model = MIFS_train(Z, Y, method);'));
  rmpath(shimdir);
  clear global MIFS_START
  W_train = model{3};

  % the same steps written out (V, then B, then W; D = I on the first pass), recording the objective
  a = P.alpha; b = P.beta; g = P.gamma; lam = P.step;
  W = W0; V = V0; B = B0; dW = ones(d, 1);
  objective = zeros(P.n_iter, 1);
  for it = 1:P.n_iter
    ZW = Z * W;
    V = V - lam * ((V - ZW) + a * (V * B - Y) * B' + b * L * V);
    B = B - lam * V' * (V * B - Y);
    W = W - lam * (Z' * (ZW - V) + W .* (g * dW));   % the order of MIFS_train's operations
    r2 = sum(W .^ 2, 2);
    dW = 0.5 ./ sqrt(r2 + eps);
    objective(it) = norm(Z * W - V, 'fro') ^ 2 + a * norm(Y - V * B, 'fro') ^ 2 + b * trace(V' * L * V) ...
                    + g * sum(sqrt(r2));
  end
  gap = max(abs(W_train(:) - W(:)));
  if gap ~= 0
    error('the written-out steps do not reproduce MIFS_train: max |W difference| = %g', gap);
  end
  [~, order] = sort(sum(W_train .^ 2, 2), 'descend');   % MIFS_train's ranking

  fmt = '%.17g';
  dlmwrite(fullfile(casedir, 'octave_W.csv'), W_train, 'delimiter', ',', 'precision', fmt);
  dlmwrite(fullfile(casedir, 'octave_V.csv'), V, 'delimiter', ',', 'precision', fmt);
  dlmwrite(fullfile(casedir, 'octave_B.csv'), B, 'delimiter', ',', 'precision', fmt);
  dlmwrite(fullfile(casedir, 'octave_objective.csv'), objective, 'delimiter', ',', 'precision', fmt);
  dlmwrite(fullfile(casedir, 'octave_ranking.csv'), order(:)', 'delimiter', ',');
  [i, j, v] = find(S);
  dlmwrite(fullfile(casedir, 'octave_graph.csv'), [i, j, v], 'delimiter', ',', 'precision', fmt);
  f = fopen(fullfile(casedir, 'octave_scalars.json'), 'w');
  fprintf(f, '{\n "delta2": %.17g,\n "t": %.17g,\n "n_iter": %d,\n "step": %.17g,\n', delta2, sqrt(delta2), ...
          P.n_iter, P.step);
  fprintf(f, ' "mifs_train_message": "%s"\n}\n', message);
  fclose(f);
  printf('%s: %s; objective %.10g -> %.10g\n', casedir, message, objective(1), objective(end));
end
