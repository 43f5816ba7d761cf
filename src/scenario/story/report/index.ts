/**
 * src/scenario/story/report — an attempt's report (issue 23, item 3): the AttemptTrace the host records beside
 * the StoryRunner, its picture (SVG), the readable page (HTML, offline) and a campaign's summary tables. Pure:
 * strings out; the host writes the files.
 */
export { AttemptTrace, followedIds, type TraceJson, type TraceMin, type TraceOptions } from './trace.js';
export { renderAttemptSvg, type SvgOptions } from './svg.js';
export { renderAttemptHtml, reportParams, type ReportMeta } from './html.js';
export { campaignTable, type CampaignRow, type CampaignTable } from './campaign.js';
export { attemptLines } from './format.js';
export { identicalRowNotes, type EgoLimits, type IdenticalRow } from './identical.js';
