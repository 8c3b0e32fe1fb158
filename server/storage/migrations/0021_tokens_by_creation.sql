-- Which tokens were issued lately, in every organization: a process that must tell a live token
-- from a guess without looking each one up (an address flooding bad tokens) learns of new tokens
-- by their creation time (server/operations/live-tokens.ts).
create index api_tokens_by_created on api_tokens (created_at);
