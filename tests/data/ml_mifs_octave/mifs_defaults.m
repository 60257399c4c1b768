function mifs_defaults(casedir, toolbox, stubdir)
  % MIFS_train with the toolbox's own defaults (SetMIFSParameter: lambda = 1e-5, epsIt = 1e-3,
  % maxIt = 500, k = 0.3, t = 1) and its own uniform random start (rand('state', 1)), on the z-scored
  % features of one case: how far W moves from its random start.
  addpath(toolbox); addpath(stubdir);
  X = dlmread(fullfile(casedir, 'X.csv'), ',');
  Y = dlmread(fullfile(casedir, 'Y.csv'), ',');
  [~, d] = size(X);
  Z = (X - mean(X)) ./ std(X, 1);
  prm = SetMIFSParameter();
  prm.dim = d;
  c = round(prm.k * size(Y, 2));
  rand('state', 1);
  W_start = rand(d, c);                                 % MIFS_train's first draw after the same reset
  rand('state', 1);
  method.name = {'MIFS', 'Stub'};
  method.param = {prm, struct()};
  message = strtrim(evalc('model = MIFS_train(Z, Y, method);'));
  W = model{3};
  [~, order_start] = sort(sum(W_start .^ 2, 2), 'descend');
  [~, order] = sort(sum(W .^ 2, 2), 'descend');
  change = norm(W - W_start, 'fro') / norm(W_start, 'fro');
  f = fopen(fullfile(casedir, 'toolbox_defaults.json'), 'w');
  fprintf(f, '{\n "mifs_train_message": "%s",\n "latent_dim": %d,\n', message, c);
  fprintf(f, ' "relative_change_of_W_from_its_random_start": %.6g,\n', change);
  fprintf(f, ' "ranking": [%s],\n', strjoin(arrayfun(@num2str, order(:)', 'UniformOutput', false), ', '));
  fprintf(f, ' "ranking_of_the_random_start": [%s]\n}\n', ...
          strjoin(arrayfun(@num2str, order_start(:)', 'UniformOutput', false), ', '));
  fclose(f);
  printf('%s (toolbox defaults): %s; ||W - W_start|| / ||W_start|| = %.3g\n', casedir, message, change);
end
