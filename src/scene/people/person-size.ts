/** A person's box at real size: the Euro NCAP EPTa adult target's 0.5 m shoulder width, and 0.3 m deep (torso) [m] */
export const PERSON_WIDTH_M = 0.5;
export const PERSON_DEPTH_M = 0.3;
