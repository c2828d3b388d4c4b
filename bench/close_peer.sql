-- The monthly close's SQL peer: FLADUB v1 (SPEC.md section 4) as one PostgreSQL statement.
--
--   psql -X -v ON_ERROR_STOP=1 -v discipline=fido -v close=2026-03-01 -v close_index=24314 \
--        -v first_played=2025-04-01 -v first_list=2025-03-01 -v previous=2026-02-01 \
--        -v explain=0 -f bench/close_peer.sql DATABASE_URL
--
-- Writes L(close) into the UNLOGGED table bench_sql_list (rank, player_id, fladub_cents,
-- results_counted, previous_rank; NULL = new). bench/close_month.py runs it side by side
-- with the close and asserts that the two lists agree player by player. With explain=1 it
-- prints EXPLAIN (ANALYZE, BUFFERS) of the same statement.
--
-- How it computes, in one pass over the window's rows:
-- * q_j = F_j / F_max of L(M - 1) for a match played in M (0 when not listed), joined by
--   (player, month played); a team's strength is the mean of its members' q;
-- * pts(T) = B * (sum of 1 + q_U over the sides U below T + half of it over the other sides
--   level with T) / (k - 1), with window functions over each match's rows ordered by score:
--   each member carries a 1/n share of its side (n its side's members), so sums over member
--   rows are sums over sides, and every window uses the one sort by (match, score, side);
-- * weights (12 - a) / 12, the 20 best per player by row_number(), the sum rounded half away
--   from zero to cents (round(numeric)), rank() with ties, the previous rank from L(R - 1).
-- The scan, the strength join and the sort by match run in parallel workers (below a
-- Gather Merge); window functions run in the leader only (PostgreSQL 15 has no parallel
-- window aggregation). work_mem 1.5 GB keeps both big sorts in memory.

SET work_mem = '1536MB';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0.01;
DROP TABLE IF EXISTS bench_sql_list;
\if :explain
EXPLAIN (ANALYZE, BUFFERS)
\endif
CREATE UNLOGGED TABLE bench_sql_list AS
WITH lists AS (
    SELECT l.id, (l.month + interval '1 month')::date AS played,
           max(e.fladub_cents)::float8 AS top
    FROM rankings_rankinglist l JOIN rankings_rankingentry e ON e.ranking_list_id = l.id
    WHERE l.discipline = :'discipline' AND l.status = 'published'
      AND l.month >= DATE :'first_list' AND l.month < DATE :'close'
    GROUP BY l.id, l.month
),
strength AS (
    SELECT s.played, e.player_id, e.fladub_cents / s.top AS q
    FROM lists s JOIN rankings_rankingentry e ON e.ranking_list_id = s.id
),
members AS (
    SELECT m.match_id, m.side_position AS side, m.score, m.base, m.player_id,
           :close_index - (extract(year FROM m.month_played)::int * 12
                           + extract(month FROM m.month_played)::int - 1) AS age,
           coalesce(s.q, 0) AS q
    FROM matches_sidemember m
    LEFT JOIN strength s ON s.player_id = m.player_id AND s.played = m.month_played
    WHERE m.discipline = :'discipline' AND m.counting_month <= DATE :'close'
      AND m.month_played >= DATE :'first_played' AND m.month_played <= DATE :'close'
      AND (m.void_effective_month IS NULL OR m.void_effective_month > DATE :'close')
),
seats AS (
    -- A member's share of its side: 1/n of the side's strength 1 + q_U (q_U: the mean).
    SELECT match_id, score, base, player_id, age,
           (1 + avg(q) OVER side) / count(*) OVER side AS share,
           1.0::float8 / count(*) OVER side AS seat
    FROM members
    WINDOW side AS (PARTITION BY match_id, score, side)
),
points AS (
    SELECT player_id,
           base * (coalesce(sum(share) OVER below, 0)
                   + 0.5 * (sum(share) OVER level - (share / seat)))
                / (round(sum(seat) OVER whole) - 1) * (12 - age) / 12 AS wp
    FROM seats
    WINDOW whole AS (PARTITION BY match_id),
           below AS (whole ORDER BY score
                     RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP),
           level AS (whole ORDER BY score RANGE BETWEEN CURRENT ROW AND CURRENT ROW)
),
best AS (
    SELECT player_id, wp, row_number() OVER (PARTITION BY player_id ORDER BY wp DESC) AS n
    FROM points
),
totals AS (
    SELECT player_id, round((sum(wp) FILTER (WHERE n <= 20))::numeric, 2) AS fladub,
           count(*) AS results_counted
    FROM best GROUP BY player_id
)
SELECT rank() OVER (ORDER BY t.fladub DESC)::int AS rank, t.player_id,
       (t.fladub * 100)::int AS fladub_cents, t.results_counted::int AS results_counted,
       p.rank AS previous_rank
FROM totals t
LEFT JOIN rankings_rankingentry p
  ON p.player_id = t.player_id
 AND p.ranking_list_id = (SELECT id FROM rankings_rankinglist WHERE discipline = :'discipline'
                          AND status = 'published' AND month = DATE :'previous')
WHERE t.fladub > 0;
