/**
 * OpenSCENARIO's DynamicsShape as functions of the progress u ∈ [0, 1]: the shape f (f(0) = 0, f(1) = 1), its
 * slope f′ and its integral F(u) = ∫₀ᵘ f (F(1) = ½ for all but step). A speed change integrates exactly with F,
 * so an actor's distance does not depend on how the host cuts time into steps. `step` jumps at once.
 */
import type { Shape } from './spec.js';

export function shapeValue(shape: Shape, u: number): number {
  if (u <= 0) return 0;
  if (u >= 1) return 1;
  switch (shape) {
    case 'linear': return u;
    case 'cubic': return u * u * (3 - 2 * u);
    case 'sinusoidal': return 0.5 * (1 - Math.cos(Math.PI * u));
    case 'step': return 1;
  }
}

/** df/du */
export function shapeSlope(shape: Shape, u: number): number {
  if (u <= 0 || u >= 1) return 0;
  switch (shape) {
    case 'linear': return 1;
    case 'cubic': return 6 * u * (1 - u);
    case 'sinusoidal': return 0.5 * Math.PI * Math.sin(Math.PI * u);
    case 'step': return 0;
  }
}

/** ∫₀ᵘ f, for u ∈ [0, 1] */
export function shapeIntegral(shape: Shape, u: number): number {
  const x = Math.min(Math.max(u, 0), 1);
  switch (shape) {
    case 'linear': return 0.5 * x * x;
    case 'cubic': return x * x * x - 0.5 * x * x * x * x;
    case 'sinusoidal': return 0.5 * x - Math.sin(Math.PI * x) / (2 * Math.PI);
    case 'step': return x;
  }
}
