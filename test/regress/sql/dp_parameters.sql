-- SafePub's (epsilon, delta) -> (beta, k) (docs/dp.md). The expected values come from
-- test/reference/safepub_parameters.py (60-digit decimals, exact binomials, no log space):
-- (1, 1e-3) -> k 34, delta(34) = 8.506156689596e-4; (2, 1e-5) -> k 113; (0.5, 1e-3) -> k 27.
SELECT epsilon, delta, round(p.beta::numeric, 12) AS beta, p.k, to_char(p.delta_k, '9.999999EEEE') AS delta_k,
       p.delta_k <= delta AS within
FROM (VALUES (1.0::float8, 1e-3::float8), (1.0, 1e-5), (2.0, 1e-5), (0.5, 1e-3), (1.5, 1e-4)) AS v(epsilon, delta),
     LATERAL privrisk.dp_parameters(epsilon, delta) AS p
ORDER BY epsilon, delta;
-- Smaller delta, larger k; larger epsilon, larger beta.
SELECT bool_and(k >= lag_k) AS k_grows_as_delta_shrinks
FROM (SELECT (privrisk.dp_parameters(1, d)).k, lag((privrisk.dp_parameters(1, d)).k) OVER (ORDER BY d DESC) AS lag_k
      FROM unnest(ARRAY[1e-2, 1e-3, 1e-4, 1e-5, 1e-6]::float8[]) AS d) AS s WHERE lag_k IS NOT NULL;
SELECT bool_and(beta > lag_beta) AS beta_grows_with_epsilon
FROM (SELECT (privrisk.dp_parameters(e, 1e-4)).beta, lag((privrisk.dp_parameters(e, 1e-4)).beta) OVER (ORDER BY e) AS lag_beta
      FROM unnest(ARRAY[0.1, 0.5, 1, 2, 4]::float8[]) AS e) AS s WHERE lag_beta IS NOT NULL;
-- Bad input.
SELECT * FROM privrisk.dp_parameters(0, 1e-3);
SELECT * FROM privrisk.dp_parameters(-1, 1e-3);
SELECT * FROM privrisk.dp_parameters('NaN', 1e-3);
SELECT * FROM privrisk.dp_parameters(1, 0);
SELECT * FROM privrisk.dp_parameters(1, 1);
SELECT (privrisk.dp_parameters(1, NULL)).k IS NULL AS null_is_null;
