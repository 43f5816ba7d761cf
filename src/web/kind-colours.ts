/**
 * The colours of people on the web map (a pedestrian, a cyclist), unlike any vehicle's or signal state's, apart from
 * the drawing so that tests in Node can read them without the DOM. style.css repeats them for the legend.
 */
export const PERSON_COLOURS = {
  pedestrian: '#ffe14d',
  cyclist: '#1fd6c6',
} as const;
